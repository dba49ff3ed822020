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

/**
 * Records an owner's specs in one of a kernel's tables, each made into an entry by `entry`
 * (`specOf` reads the spec back from one). A name two owners declare differently is a bug,
 * refused; the same spec again (a declaration two services both hand over) is not.
 */
export function recordOnce<S, E extends { readonly owner: string }>(
  table: Map<string, E>,
  what: string,
  owner: string,
  specs: object,
  entry: (name: string, spec: S) => E,
  specOf: (known: E) => unknown,
): void {
  for (const [name, spec] of Object.entries(specs) as [string, S][]) {
    const known = table.get(name)
    if (known && specOf(known) !== spec)
      throw new Error(`${what} ${name} is declared by both ${known.owner} and ${owner}`)
    table.set(name, entry(name, spec))
  }
}
