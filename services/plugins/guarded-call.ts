import {
  type EventMeta,
  isThenable as kernelIsThenable,
  type Logger,
  listenerError,
  SmError,
  timeBox,
} from '../../kernel'

// Re-exports compile to getters; this runs once per hook call, so read it once.
const isThenable = kernelIsThenable

/** Returned by a plugin listener that the loop guard skipped; never a veto. */
export const SKIPPED = Symbol('skipped by the re-entrancy guard')

export interface CallOptions {
  readonly plugin: string
  readonly logger: Logger
  readonly timeoutMs: number
  /** Told about every throw and timeout, for the plugin's failure count. */
  readonly onFailure: (event: string, error: SmError) => void
  /** Told before plugin code runs (the loop watchdog's note of who runs). */
  readonly enter?: (hook: string) => void
}

/**
 * Wraps plugin code as a bus listener: skipped when the event is re-entering its own dispatch
 * (logged, not silent), bounded by the hook timeout, and every failure attributed to the plugin
 * before the bus reports it. A hook that returns synchronously costs no promise and no timer.
 * (What the hook does through `this.api` runs as `plugin:<name>`: the gateway sets that.)
 */
export function guardedListener<P>(
  event: string,
  options: CallOptions,
  call: (payload: P, meta: EventMeta) => unknown,
): (payload: P, meta: EventMeta) => unknown {
  const { plugin, timeoutMs, enter } = options
  const owner = `plugin:${plugin}`
  const fail = (cause: unknown): SmError => hookFailed(options, event, cause)
  return (payload, meta) => {
    if (meta.reentrant) return skipped(options, meta)
    let result: unknown
    enter?.(event)
    try {
      result = call(payload, meta)
    } catch (cause) {
      throw fail(cause)
    }
    if (!isThenable(result)) return result
    const timeout = () => new SmError('SM_ERR_KERNEL_LISTENER_TIMEOUT', { owner, event, ms: timeoutMs })
    return timeBox(result, timeoutMs, timeout).catch((cause: unknown) => {
      throw fail(cause)
    })
  }
}

/** A plugin's hook failed (threw, timed out): logged, counted against the plugin, and the error the bus reports. */
export function hookFailed(options: CallOptions, event: string, cause: unknown): SmError {
  const error = listenerError(`plugin:${options.plugin}`, event, cause)
  options.logger.error(error.message, { event, code: error.code })
  options.onFailure(event, error)
  return error
}

/** A plugin's hook skipped by the loop guard (the event re-enters its own dispatch): said, not silent. */
export function skipped(options: CallOptions, meta: EventMeta): typeof SKIPPED {
  options.logger.info(`skipped '${meta.event}': it is already being dispatched in this chain (loop guard)`)
  return SKIPPED
}
