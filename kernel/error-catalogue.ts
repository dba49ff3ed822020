/**
 * The error catalogue: every code the product raises, with its HTTP status, CLI exit code
 * (sysexits-style), when it happens, and a message template that tells the reader what to do.
 * The kernel holds only the registry and its own codes; each service declares its codes with
 * `defineErrors` in its `errors.ts` and merges their parameter types into `ErrorMap`.
 * docs/errors.md is the table of all of them; test/kernel/error-catalogue.test.ts keeps the two equal.
 */
export interface ErrorSpec<P> {
  /** HTTP status the web layer answers with. */
  readonly status: number
  /** Process exit code the CLI ends with. */
  readonly exit: number
  /** When the error happens, for docs/errors.md. */
  readonly when: string
  readonly message: (params: P) => string
}

/**
 * Every error code and the parameters its message is composed from. Each service adds its
 * codes by declaration merging: `interface ErrorMap extends ErrorMapOf<typeof myErrors> {}`.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging
export interface ErrorMap {}

export type ErrorCode = keyof ErrorMap & string
export type ErrorParams<C extends ErrorCode> = ErrorMap[C]

// biome-ignore lint/suspicious/noExplicitAny: any parameter shape; each spec is checked where it is written
type AnySpec = ErrorSpec<any>

/** The parameter types of a set of specs, for merging into `ErrorMap`. */
export type ErrorMapOf<T> = { [C in keyof T]: T[C] extends ErrorSpec<infer P> ? P : never }

/** One spec, its parameters typed. */
export const spec = <P = Record<string, never>>(s: ErrorSpec<P>): ErrorSpec<P> => s

export interface CatalogueEntry {
  readonly code: string
  /** The service (or `kernel`) that declared it. */
  readonly owner: string
  readonly spec: AnySpec
}

const catalogue = new Map<string, CatalogueEntry>()

/** Declares an owner's error codes; a code declared by two owners is a bug, refused at load. */
export function defineErrors<T extends Record<string, AnySpec>>(owner: string, specs: T): T {
  for (const [code, s] of Object.entries(specs)) {
    const known = catalogue.get(code)
    if (known && known.spec !== s) throw new Error(`error code ${code} is declared by both ${known.owner} and ${owner}`)
    catalogue.set(code, { code, owner, spec: s })
  }
  return specs
}

/** The spec of a code, if a loaded module declared it. */
export function errorSpec(code: string): AnySpec | undefined {
  return catalogue.get(code)?.spec
}

/** Every declared code, in declaration order. */
export function errorCatalogue(): readonly CatalogueEntry[] {
  return [...catalogue.values()]
}
