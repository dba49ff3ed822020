import { type BusScope, type DispatchReport, type Disposable, type EmitOptions, reasonOf, SmError } from '../../kernel'
import { frozenJsonCopy } from '../../lib/json-value'
import type { DeliveryReport } from './contract'
import { assertCustomEventName, channelOf, senderOf } from './event-names'
import { type CallOptions, guardedListener, SKIPPED } from './guarded-call'
import type { CustomEventListener } from './plugin-api'

/** The largest custom-event payload, as UTF-8 JSON (docs/plugins.md). */
export const MAX_EVENT_PAYLOAD_BYTES = 1024 * 1024

/**
 * Registers a plugin's listener for `<namespace>:<event>` (not in a core namespace), on the
 * custom-event channel: called as `listener(payload, { event, sender })`.
 */
export function listenForCustomEvent(
  scope: BusScope,
  name: string,
  listener: CustomEventListener,
  options: CallOptions,
): Disposable {
  assertCustomEventName(name, scope)
  if (typeof listener !== 'function') throw new TypeError(`the listener for '${name}' is not a function`)
  const call = guardedListener<Record<string, unknown>>(name, options, (payload, meta) =>
    listener(payload, { event: name, sender: senderOf(meta.actor) }),
  )
  return scope.on(channelOf(name), call as (payload: unknown) => unknown, { timeoutMs: 0, guarded: true })
}

/**
 * Sends a custom event (not in a core namespace) on the custom-event channel, so only custom
 * listeners hear it; they get one deeply frozen copy, so none can change what the next one sees.
 */
export async function sendCustomEvent(
  scope: BusScope,
  name: string,
  /** Checked here: a plain JSON object (or nothing), else SM_ERR_PLUGIN_INVALID_PAYLOAD. */
  payload: unknown,
  options?: EmitOptions,
): Promise<DeliveryReport> {
  assertCustomEventName(name, scope)
  if (payload !== undefined && (payload === null || typeof payload !== 'object' || Array.isArray(payload))) {
    throw new SmError('SM_ERR_PLUGIN_INVALID_PAYLOAD', { event: name, reason: 'it is not a JSON object' })
  }
  let copy: Record<string, unknown>
  try {
    copy = frozenJsonCopy((payload ?? {}) as Record<string, unknown>, MAX_EVENT_PAYLOAD_BYTES)
  } catch (error) {
    throw new SmError('SM_ERR_PLUGIN_INVALID_PAYLOAD', { event: name, reason: reasonOf(error) }, { cause: error })
  }
  // Listeners cannot veto: they hear it side by side.
  return toDeliveryReport(name, await scope.emit(channelOf(name), copy, { ...options, parallel: true }))
}

export function toDeliveryReport(event: string, report: DispatchReport): DeliveryReport {
  const successes = report.successes
  const delivered = successes.filter((success) => success.value !== SKIPPED).length
  return {
    event,
    listeners: report.listeners,
    delivered,
    skipped: delivered === 0 && successes.some((success) => success.value === SKIPPED),
    failed: report.failures.map((failure) => ({
      plugin: failure.owner.replace(/^plugin:/, ''),
      error: failure.error.message,
    })),
  }
}
