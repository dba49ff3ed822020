import { type EventMeta, type Logger, runInContext, SmError } from '../../kernel'
import { timeBox } from '../../kernel/time-box'

/** Returned by a plugin listener that the loop guard skipped; never a veto. */
export const SKIPPED = Symbol('skipped by the re-entrancy guard')

export interface CallOptions {
  readonly plugin: string
  readonly logger: Logger
  readonly timeoutMs: number
  /** Told about every throw and timeout, for the plugin's failure count. */
  readonly onFailure: (event: string, error: SmError) => void
}

/**
 * Wraps plugin code as a bus listener: skipped when the event is re-entering its own dispatch
 * (logged, not silent), run as `plugin:<name>`, bounded by the hook timeout, and every failure
 * attributed to the plugin before the bus reports it.
 */
export function guardedListener<P>(
  event: string,
  options: CallOptions,
  call: (payload: P, meta: EventMeta) => unknown,
): (payload: P, meta: EventMeta) => Promise<unknown> {
  const { plugin, logger, timeoutMs, onFailure } = options
  return async (payload, meta) => {
    if (meta.reentrant) {
      logger.info(`skipped '${meta.event}': it is already being dispatched in this chain (loop guard)`)
      return SKIPPED
    }
    const owner = `plugin:${plugin}`
    const timeout = () => new SmError('SM_ERR_KERNEL_LISTENER_TIMEOUT', { owner, event, ms: timeoutMs })
    try {
      return await timeBox(
        Promise.resolve().then(() => runInContext({ actor: owner }, () => call(payload, meta))),
        timeoutMs,
        timeout,
      )
    } catch (cause) {
      const error =
        cause instanceof SmError && cause.code === 'SM_ERR_KERNEL_LISTENER_TIMEOUT'
          ? cause
          : new SmError(
              'SM_ERR_KERNEL_LISTENER_FAILED',
              { owner, event, reason: (cause as Error)?.message ?? String(cause) },
              { cause },
            )
      logger.error(error.message, { event, code: error.code })
      onFailure(event, error)
      throw error
    }
  }
}
