import { AsyncLocalStorage } from 'node:async_hooks'

/**
 * What travels with one causal chain of work (a CLI command, an HTTP request, a hook that
 * triggers another action): who started it, and which event identities are being dispatched
 * in it. Tracked with AsyncLocalStorage, so it follows awaits and never leaks between chains.
 */
export interface CallContext {
  /** `core`, `cli:<user>`, `http:<user>` or `plugin:<name>`. */
  readonly actor: string
  /** Identities of the events being dispatched in this chain (the re-entrancy guard). */
  readonly chain: ReadonlySet<string>
}

const storage = new AsyncLocalStorage<CallContext>()
const root: CallContext = { actor: 'core', chain: new Set() }

export function currentContext(): CallContext {
  return storage.getStore() ?? root
}

/** Runs `fn` with `patch` applied over the current context. */
export function runInContext<T>(patch: Partial<CallContext>, fn: () => T): T {
  return storage.run({ ...currentContext(), ...patch }, fn)
}
