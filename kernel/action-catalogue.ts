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

const catalogue = new Map<string, ActionEntry>()

/**
 * Declares the actions a service performs (their payload types are merged into `ActionMap` in
 * the same file). Everything else is derived from this one record: the `before_*`/`after_*`
 * events, the plugin hook method names, the loop guard's identity and the hook reference.
 */
export function defineActions(
  owner: string,
  declarations: { readonly [A in ActionName]?: ActionDeclaration<A> },
): void {
  for (const [name, declaration] of Object.entries(declarations) as [string, ActionDeclaration][]) {
    const known = catalogue.get(name)
    if (known && known.declaration !== declaration)
      throw new Error(`action ${name} is declared by both ${known.owner} and ${owner}`)
    catalogue.set(name, { name, owner, declaration })
  }
}

/** The service that declared an action (and alone performs it), if any did. */
export function actionOwner(name: string): string | undefined {
  return catalogue.get(name)?.owner
}

/** Every declared action, in declaration order. */
export function actionCatalogue(): readonly ActionEntry[] {
  return [...catalogue.values()]
}
