import { tagged } from './declaration'
import type { ActionMap, ActionName } from './maps'

/** What the runtime knows of one action besides its payload type. */
export interface ActionDeclaration<A extends ActionName = ActionName> {
  /** Payload fields that name one occurrence (`key` of a setting change): the loop guard's identity. */
  readonly identity: readonly (keyof ActionMap[A] & string)[]
  /** When it happens, completing "before/after …": `a global setting changes`. */
  readonly summary: string
  /** An older name of the `before_*` hook method, still honoured (`beforeStartServer`). */
  readonly beforeAlias?: string
}

export interface ActionEntry {
  readonly name: string
  readonly owner: string
  readonly declaration: ActionDeclaration
}

/**
 * Declares the actions a service performs (their payload types are merged into `ActionMap` in
 * the same file); returns them for the service's `declares`, and a kernel records them when the
 * service is added. Everything else is derived from this one record: the `before_*`/`after_*`
 * events, the plugin hook method names, the loop guard's identity and the hook reference.
 */
export function defineActions<T extends { readonly [A in ActionName]?: ActionDeclaration<A> }>(
  owner: string,
  declarations: T,
): T {
  return tagged(declarations, { kind: 'actions', owner })
}

/** One kernel's actions, as its services declared them. */
export class ActionCatalogue {
  readonly #entries = new Map<string, ActionEntry>()

  /** Records an owner's actions; an action two owners declare differently is a bug, refused. */
  add(owner: string, declarations: object): void {
    for (const [name, declaration] of Object.entries(declarations) as [string, ActionDeclaration][]) {
      const known = this.#entries.get(name)
      if (known && known.declaration !== declaration)
        throw new Error(`action ${name} is declared by both ${known.owner} and ${owner}`)
      this.#entries.set(name, { name, owner, declaration })
    }
  }

  /** The service that declared an action (and alone performs it), if any did. */
  ownerOf(name: string): string | undefined {
    return this.#entries.get(name)?.owner
  }

  /** Every declared action, in declaration order. */
  entries(): readonly ActionEntry[] {
    return [...this.#entries.values()]
  }
}
