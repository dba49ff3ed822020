/** What a service can declare to its kernel. */
export type DeclarationKind = 'commands' | 'events' | 'errors' | 'settings' | 'actions'

/** Who declared a set of specs, and as what: carried by the set itself. */
export interface DeclarationTag {
  readonly kind: DeclarationKind
  /** The namespace or service it is declared under (`servers`, `kernel`, `nats`). */
  readonly owner: string
  /** Events only: the names they had before, which the event log renames its stored facts from. */
  readonly formerly?: Readonly<Record<string, string | undefined>>
}

const TAG = Symbol('server-manager declaration')

/**
 * Marks a set of specs as a declaration (`defineCommands`, `defineErrors` …). Pure: nothing is
 * registered; the set is returned unchanged but for a hidden tag, and whichever kernel is handed
 * it (a service's `declares`) records it. The tag is not enumerable, so the set reads as before.
 */
export function tagged<T extends object>(specs: T, tag: DeclarationTag): T {
  Object.defineProperty(specs, TAG, { value: tag, enumerable: false })
  return specs
}

/** The tag of a declaration, or undefined for anything a `define…` function did not return. */
export function tagOf(value: unknown): DeclarationTag | undefined {
  return value !== null && typeof value === 'object' ? (value as { [TAG]?: DeclarationTag })[TAG] : undefined
}
