import { recordOnce, tagged, tagOf } from './declaration'

/**
 * The error catalogue: every code the product raises, with its HTTP status, CLI exit code
 * (sysexits-style), when it happens, and a message template that tells the reader what to do.
 * Each service declares its codes with `defineErrors` in its `errors.ts` (merging their parameter
 * types into `ErrorMap`) and hands them to its kernel (`declares`).
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
  /**
   * The message as the panel and the HTTP API say it, where `message` names a command line
   * (`server-manager server list`, `--stop`): what to do there instead. None: `message`.
   */
  readonly web?: (params: P) => string
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

/**
 * Declares an owner's error codes: plain data, returned for the modules that raise them and for
 * the service's `declares`. A kernel's catalogue (what it documents) is the union of its
 * services' declarations; what a code means is the same in every process (`knowErrors`).
 */
export function defineErrors<T extends Record<string, AnySpec>>(owner: string, specs: T): T {
  return tagged(specs, { kind: 'errors', owner })
}

/** A table of codes; a code declared by two owners differently is a bug, refused. */
export class ErrorCatalogue {
  readonly #entries = new Map<string, CatalogueEntry>()

  add(owner: string, specs: object): void {
    recordOnce(
      this.#entries,
      'error code',
      owner,
      specs,
      (code, spec: AnySpec) => ({ code, owner, spec }),
      (known) => known.spec,
    )
  }

  /** The spec of a code, if it was declared here. */
  spec(code: string): AnySpec | undefined {
    return this.#entries.get(code)?.spec
  }

  /** Every declared code, in declaration order. */
  entries(): readonly CatalogueEntry[] {
    return [...this.#entries.values()]
  }
}

// What each code means, in this process: a code means the same everywhere, so one table is
// shared by every kernel of the process (each adds its services' codes when they are added) and
// by code that runs with no kernel (the CLI before any manager, a host agent, a plugin's thread),
// whose entry point hands it the codes it raises (`knowErrors(cliErrors, …)`). It only grows.
const known = new ErrorCatalogue()

/** Makes declared error codes known to this process: an SmError of one carries its status and message. */
export function knowErrors(...declarations: readonly object[]): void {
  for (const declaration of declarations) {
    const tag = tagOf(declaration)
    if (tag?.kind !== 'errors') throw new Error('knowErrors takes what defineErrors returned')
    known.add(tag.owner, declaration)
  }
}

/** What a code means, if it is known in this process (`knowErrors`). */
export function errorSpec(code: string): AnySpec | undefined {
  return known.spec(code)
}
