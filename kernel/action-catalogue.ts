import type { z } from 'zod'

/** The payload fields an identity may name: any string until the payload's schema is known. */
type FieldOf<P extends z.ZodType> = z.ZodType extends P ? string : keyof z.output<P> & string

/** One action as its service declares it: its payload's schema, and what else the runtime knows of it. */
export interface ActionDeclaration<P extends z.ZodType = z.ZodType> {
  /**
   * The payload its `before_*` hook sees (and, with `result`, its `after_*` hook and fact):
   * `ActionMap`'s type comes from it (`ActionsOf`), and a payload that does not fit is refused
   * where it crosses (kernel/action.ts, the bridge, the event log) with SM_ERR_BUS_BAD_PAYLOAD.
   */
  readonly payload: P
  /** Payload fields that name one occurrence (`key` of a setting change): the loop guard's identity. */
  readonly identity: readonly FieldOf<P>[]
  /** When it happens, completing "before/after …": `a global setting changes`. */
  readonly summary: string
  /** An older name of the `before_*` hook method, still honoured (`beforeStartServer`). */
  readonly beforeAlias?: string
}

/** The payload types of a set of action declarations, for merging into `ActionMap`. */
export type ActionsOf<T> = { [K in keyof T]: T[K] extends ActionDeclaration<infer P> ? z.output<P> : never }

export interface ActionEntry {
  readonly name: string
  readonly owner: string
  readonly declaration: ActionDeclaration
}

const catalogue = new Map<string, ActionEntry>()

/**
 * Declares the actions a service performs, each with its payload's schema; returns them for
 * `ActionsOf`, whose types the service merges into `ActionMap` in the same file. Everything else
 * is derived from this one record: the `before_*`/`after_*` events and their checks, the plugin
 * hook method names, the loop guard's identity and the hook reference.
 */
export function defineActions<const T extends Record<string, z.ZodType>>(
  owner: string,
  declarations: { readonly [A in keyof T]: ActionDeclaration<T[A]> },
): { readonly [A in keyof T]: ActionDeclaration<T[A]> } {
  register(owner, declarations)
  return declarations
}

function register(owner: string, declarations: object): void {
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

/** The schema of an action's payload, if the action is declared here. */
export function actionPayload(name: string): z.ZodType | undefined {
  return catalogue.get(name)?.declaration.payload
}
