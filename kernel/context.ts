import { AsyncLocalStorage } from 'node:async_hooks'

/**
 * The identities of the events being dispatched in one causal chain, innermost first. An
 * immutable linked list: entering an event costs one small object, and chains are short.
 */
export class Chain {
  readonly key: string
  readonly parent: Chain | undefined

  constructor(key: string, parent: Chain | undefined) {
    this.key = key
    this.parent = parent
  }

  has(key: string): boolean {
    for (let link: Chain | undefined = this; link; link = link.parent) if (link.key === key) return true
    return false
  }
}

/**
 * What travels with one causal chain of work (a CLI command, an HTTP request, a hook that
 * triggers another action): who started it, and which event identities are being dispatched
 * in it. Tracked with AsyncLocalStorage, so it follows awaits and never leaks between chains.
 */
export interface CallContext {
  /** `core`, `cli:<user>`, `http:<user>` or `plugin:<name>`. */
  readonly actor: string
  /** Identities of the events being dispatched in this chain (the re-entrancy guard). */
  readonly chain: Chain | undefined
}

const storage = new AsyncLocalStorage<CallContext>()
const root: CallContext = { actor: 'core', chain: undefined }

export function currentContext(): CallContext {
  return storage.getStore() ?? root
}

/** Runs `fn` with `patch` applied over the current context. */
export function runInContext<T>(patch: Partial<CallContext>, fn: () => T): T {
  const current = currentContext()
  const actor = patch.actor ?? current.actor
  const chain = 'chain' in patch ? patch.chain : current.chain
  return storage.run({ actor, chain }, fn)
}
