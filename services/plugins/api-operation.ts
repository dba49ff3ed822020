import type { z } from 'zod'
import type { Logger } from '../../kernel'
import { SmError } from '../../kernel'
import type { GatewayLink } from './plugin-gateway'

/** What an operation runs against: the plugin it acts for and its way to the manager. */
export interface ApiContext {
  readonly plugin: string
  readonly link: GatewayLink
  readonly logger: Logger
  /** The secret keys the plugin declared (`static secretSettings`): its own to read back. */
  readonly ownSecrets: readonly string[]
  /** Every operation of this `this.api`, by name (`listAvailableApis`). */
  readonly operations: Readonly<Record<string, Operation>>
}

/** One parameter of an operation: its name and the schema an argument must pass. */
export type Param = readonly [name: string, schema: z.ZodType]

/** A read only looks; a change acts (an action, a setting, an event, a listener, a task). */
export type ApiKind = 'read' | 'change'

/** One operation of `this.api`, declared once: everything else is derived from it. */
export interface Operation<
  P extends readonly Param[] = readonly Param[],
  R = unknown,
  A extends readonly string[] = readonly string[],
> {
  readonly kind: ApiKind
  readonly params: P
  /** Other names it answers to on the same object (the seed's snake_case names). */
  readonly aliases: A
  /** One paragraph: what it does and what it resolves to (listAvailableApis, docs/plugins.md). */
  readonly description: string
  /** The work, with the arguments as their schemas parsed them (defaults applied). */
  run(ctx: ApiContext, ...args: Parsed<P>): Promise<R>
}

/** Zod's own test for an argument that may be left out: optional, or with a default. */
type Omittable<S extends z.ZodType> = S['_zod']['optin'] extends 'optional' | 'defaulted' ? true : false

/** The arguments a plugin passes: each parameter's schema input, the omittable ones optional. */
export type Args<P extends readonly Param[]> = P extends readonly [
  infer H extends Param,
  ...infer T extends readonly Param[],
]
  ? Omittable<H[1]> extends true
    ? [arg?: z.input<H[1]>, ...Args<T>]
    : [arg: z.input<H[1]>, ...Args<T>]
  : []

/** The arguments the work gets: each schema's output. */
export type Parsed<P extends readonly Param[]> = {
  -readonly [I in keyof P]: P[I] extends Param ? z.output<P[I][1]> : never
}

type Spec<P extends readonly Param[], R, A extends readonly string[]> = Omit<Operation<P, R, A>, 'kind' | 'aliases'> & {
  readonly aliases?: A
}

/**
 * The aliases of an operation that declared none. A cast: `A` is the literal tuple inferred from
 * a declaration, defaulting to `[]`, and TypeScript cannot see that an empty array is one.
 */
const noAliases = <A extends readonly string[]>(): A => [] as unknown as A

/** Declares an operation that only reads; it resolves to the value read. */
export function read<const P extends readonly Param[], R, const A extends readonly string[] = []>(
  spec: Spec<P, R, A>,
): Operation<P, R, A> {
  return { ...spec, kind: 'read', aliases: spec.aliases ?? noAliases<A>() }
}

/** Declares an operation that changes something; it resolves to its result, and throws when it did not happen. */
export function change<const P extends readonly Param[], R, const A extends readonly string[] = []>(
  spec: Spec<P, R, A>,
): Operation<P, R, A> {
  return { ...spec, kind: 'change', aliases: spec.aliases ?? noAliases<A>() }
}

/**
 * What a change that happened resolves to: its reply, `status: 'success'` and a message (over
 * a reply's own `status`: a started server's is `running`, by definition).
 */
export type Done<T extends object = object> = Omit<T, 'status' | 'message'> & {
  readonly status: 'success'
  readonly message: string
}

export function done<T extends object>(reply: T, message: string): Done<T> {
  return { ...reply, status: 'success', message }
}

/** An operation's aliases as names (none when it declared none). */
type AliasOf<O extends Operation> = O['aliases'] extends readonly (infer A extends string)[]
  ? string extends A
    ? never
    : A
  : never

/** The API a table declares: every operation under its name and each of its aliases. */
export type ApiOf<T extends Record<string, Operation>> = {
  readonly [K in keyof T as K | AliasOf<T[K]>]: T[K] extends Operation<infer P, infer R>
    ? (...args: Args<P>) => Promise<R>
    : never
}

/**
 * The arguments of a call, checked against the operation's parameters and parsed (defaults
 * applied). A bad one is SM_ERR_PLUGIN_API_BAD_ARGUMENT, naming the parameter and the usage.
 */
export function parseArguments(plugin: string, call: string, operation: Operation, args: unknown[]): unknown[] {
  const bad = (parameter: string, reason: string) =>
    new SmError('SM_ERR_PLUGIN_API_BAD_ARGUMENT', { plugin, call, parameter, reason, usage: usage(call, operation) })
  const count = operation.params.length
  const extra = args.findIndex((arg, i) => i >= count && arg !== undefined)
  if (extra >= 0) throw bad(`argument ${extra + 1}`, `it takes ${count === 0 ? 'no arguments' : `at most ${count}`}`)
  return operation.params.map(([name, schema], i) => {
    const parsed = schema.safeParse(args[i])
    if (parsed.success) return parsed.data
    const issue = parsed.error.issues[0]
    const where = [name, ...(issue?.path ?? []).map(String)].join('.')
    throw bad(`'${where}'`, issue?.message ?? 'it does not match its declaration')
  })
}

/** An operation's parameters as a reader sees them: `{ name, type, default? }`. */
export function describeParams(operation: Operation): { name: string; type: string; default?: string }[] {
  return operation.params.map(([name, schema]) => {
    const fallback = defaultText(schema)
    return fallback === undefined
      ? { name, type: typeText(schema) }
      : { name, type: typeText(schema), default: fallback }
  })
}

/** `startServer(serverName, mode = 'detached')`. */
export function usage(call: string, operation: Operation): string {
  const params = describeParams(operation).map((p) => (p.default === undefined ? p.name : `${p.name} = ${p.default}`))
  return `${call}(${params.join(', ')})`
}

interface Meta {
  /** How the type reads where zod cannot say it (a function's shape). */
  readonly type?: string
  /** The default, where the manager applies it and not the schema (`retention.backups`). */
  readonly default?: string
}

const metaOf = (schema: z.ZodType): Meta => (schema.meta() ?? {}) as Meta

/** A schema as a TypeScript-like type: `string`, `'detached' | 'direct'`, `{ stopStartServer?: boolean }`. */
export function typeText(schema: z.ZodType): string {
  const meta = metaOf(schema)
  if (meta.type) return meta.type
  const def = schema.def as { type: string; innerType?: z.ZodType; entries?: Record<string, unknown> }
  switch (def.type) {
    case 'optional':
    case 'default':
    case 'nullable':
      return typeText(def.innerType as z.ZodType)
    case 'enum':
      return Object.values(def.entries ?? {})
        .map((v) => quote(v))
        .join(' | ')
    case 'object': {
      const shape = (schema as z.ZodObject).shape
      const fields = Object.entries(shape).map(
        ([key, field]) => `${key}${isOmittable(field) ? '?' : ''}: ${typeText(field as z.ZodType)}`,
      )
      return `{ ${fields.join('; ')} }`
    }
    case 'record':
      return 'object'
    case 'unknown':
    case 'any':
      return 'JSON'
    default:
      return def.type
  }
}

function defaultText(schema: z.ZodType): string | undefined {
  const meta = metaOf(schema)
  if (meta.default !== undefined) return meta.default
  const def = schema.def as { type: string; defaultValue?: unknown }
  return def.type === 'default' ? quote(def.defaultValue) : undefined
}

function isOmittable(schema: unknown): boolean {
  const optin = (schema as z.ZodType)._zod.optin
  return optin === 'optional' || optin === 'defaulted'
}

const quote = (value: unknown) => (typeof value === 'string' ? `'${value}'` : JSON.stringify(value))
