import type { z } from 'zod'
import { recordOnce, tagged } from './declaration'

/** The payload fields an identity may name: any string until the payload's schema is known. */
type FieldOf<P extends z.ZodType> = z.ZodType extends P ? string : keyof z.output<P> & string

/** One action as its service declares it: its payload's schema, and what else the runtime knows of it. */
export interface ActionDeclaration<P extends z.ZodType = z.ZodType> {
  /**
   * The payload its `before_*` hook sees (and, with `result`, its `after_*` hook and fact):
   * `ActionMap`'s type comes from it (`ActionsOf`), and a payload that does not fit is refused
   * where it crosses (kernel/action.ts, a host's hook over NATS) with SM_ERR_BUS_BAD_PAYLOAD.
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

/**
 * An action as far as its hooks go, without its payload's schema: what a plugin's thread is
 * handed (a schema cannot be posted to a worker; payloads are checked in the manager before a
 * hook there runs).
 */
export interface ActionSummary {
  readonly name: string
  readonly owner: string
  readonly declaration: Omit<ActionDeclaration, 'payload'>
}

export interface ActionEntry extends ActionSummary {
  readonly declaration: ActionDeclaration
}

/**
 * Declares the actions a service performs, each with its payload's schema; returns them for
 * `ActionsOf` (whose types the service merges into `ActionMap` in the same file) and for the
 * service's `declares`: a kernel records them when the service is added. Everything else is
 * derived from this one record: the `before_*`/`after_*` events and their checks, the plugin hook
 * method names, the loop guard's identity and the hook reference.
 */
export function defineActions<const T extends Record<string, z.ZodType>>(
  owner: string,
  declarations: { readonly [A in keyof T]: ActionDeclaration<T[A]> },
): { readonly [A in keyof T]: ActionDeclaration<T[A]> } {
  return tagged(declarations, { kind: 'actions', owner })
}

/** One kernel's actions, as its services declared them. */
export class ActionCatalogue {
  readonly #entries = new Map<string, ActionEntry>()

  /** Records an owner's actions; an action two owners declare differently is a bug, refused. */
  add(owner: string, declarations: object): void {
    recordOnce(
      this.#entries,
      'action',
      owner,
      declarations,
      (name, declaration: ActionDeclaration) => ({ name, owner, declaration }),
      (known) => known.declaration,
    )
  }

  /** The service that declared an action (and alone performs it), if any did. */
  ownerOf(name: string): string | undefined {
    return this.#entries.get(name)?.owner
  }

  /** The schema of an action's payload, if the action is declared here. */
  payloadOf(name: string): z.ZodType | undefined {
    return this.#entries.get(name)?.declaration.payload
  }

  /** Every declared action, in declaration order. */
  entries(): readonly ActionEntry[] {
    return [...this.#entries.values()]
  }
}
