import { z } from 'zod'
import type { CommandDoors } from './command-doors'
import { recordOnce, tagged } from './declaration'
import { SmError } from './errors'

/**
 * The bus's messages, declared once. Each service declares its commands (payload and reply)
 * and its events with zod schemas in its `contract.ts`; the types of `CommandMap` and
 * `EventMap` come from them (`interface CommandMap extends CommandsOf<typeof commands> {}`).
 * The service hands them to its kernel (`declares`), whose catalogue checks whatever crosses a
 * boundary (the bridge, the HTTP API, a plugin's call) against them. Every schema is plain data: what a JSON round trip keeps. Whatever is not
 * data (a projection's reader, a task's work, a plugin's routers) is a capability in the
 * registry, never a message.
 */
export interface CommandSpec<
  P extends z.ZodType = z.ZodType,
  R extends z.ZodType = z.ZodType,
  D extends CommandDoors = CommandDoors,
> {
  readonly payload: P
  readonly reply: R
  /** The doors it is offered through (HTTP, `this.api`, host routing), where it says. */
  readonly doors?: D
}

/**
 * A command: what it takes, what it answers, and the doors it is offered through (their literal
 * type kept: `PluginApi` types a command's `api` door from it).
 */
export const command = <P extends z.ZodType, R extends z.ZodType, const D extends CommandDoors = CommandDoors>(
  payload: P,
  reply: R,
  doors?: D,
): CommandSpec<P, R, D> => (doors ? { payload, reply, doors } : { payload, reply })

/** A payload of no fields. */
export const empty = z.object({})

/** The command types of a set of specs, for merging into `CommandMap`. */
export type CommandsOf<T> = {
  [K in keyof T]: T[K] extends CommandSpec<infer P, infer R> ? { payload: z.input<P>; reply: z.output<R> } : never
}

/** The payload types of a set of event schemas, for merging into `EventMap`. */
export type EventsOf<T> = { [K in keyof T]: T[K] extends z.ZodType ? z.output<T[K]> : never }

export interface MessageEntry<S> {
  readonly name: string
  /** The namespace it is declared in, which its service owns (`servers` for `servers:added`). */
  readonly owner: string
  readonly spec: S
  /** The name it had before names were namespaced: the event log renames stored facts of it. */
  readonly formerly?: string
}

/** The owner's namespace check: `<namespace>:<name>`, in the declaring namespace. */
function inNamespace(kind: string, owner: string, specs: object): void {
  for (const name of Object.keys(specs))
    if (!name.startsWith(`${owner}:`)) throw new Error(`${kind} ${name} is not in the namespace ${owner}: of its owner`)
}

/**
 * Declares an owner's commands; returns them for `CommandsOf`, and for the owning service's
 * `declares` (a kernel records them when the service is added).
 */
export function defineCommands<T extends Record<string, CommandSpec>>(owner: string, specs: T): T {
  inNamespace('command', owner, specs)
  return tagged(specs, { kind: 'commands', owner })
}

/**
 * Declares a namespace's events (facts and live notices); returns them for `EventsOf`, and for
 * the owning service's `declares`. `formerly`: names they had before, which the event log renames
 * its stored facts from.
 */
export function defineEvents<T extends Record<string, z.ZodType>>(
  owner: string,
  specs: T,
  formerly: { readonly [K in keyof T]?: string } = {},
): T {
  inNamespace('event', owner, specs)
  return tagged(specs, { kind: 'events', owner, formerly: formerly as Record<string, string | undefined> })
}

/** The `result` every `after_*` event carries (kernel/action.ts's ActionResult); its other fields are the work's. */
const actionResult = z.looseObject({
  status: z.enum(['success', 'error', 'cancelled']),
  message: z.string().optional(),
})
const afterFields = z.object({ result: actionResult })

/** One kernel's commands and events: what its services declared, and the checks made of them. */
export class ContractCatalogue {
  readonly #commands = new Map<string, MessageEntry<CommandSpec>>()
  readonly #events = new Map<string, MessageEntry<z.ZodType>>()
  /** The namespaces that declared something: only their owners emit in them. */
  readonly #owners = new Set<string>()

  /** Records a declaration; a name two owners declare differently is a bug, refused. */
  add(kind: 'commands' | 'events', owner: string, specs: object, formerly: Record<string, string | undefined> = {}) {
    const table: Map<string, MessageEntry<unknown>> = kind === 'commands' ? this.#commands : this.#events
    recordOnce(
      table,
      kind,
      owner,
      specs,
      (name, spec: unknown) => ({ name, owner, spec, formerly: formerly[name] }),
      (known) => known.spec,
    )
    if (Object.keys(specs).length > 0) this.#owners.add(owner)
  }

  /** Every rename of a declared event: the event log applies them to what it stored before. */
  renamedEvents(): readonly { readonly from: string; readonly to: string }[] {
    return [...this.#events.values()].flatMap(({ name, formerly }) => (formerly ? [{ from: formerly, to: name }] : []))
  }

  /**
   * Refuses an emit by a sender that does not own the event: a declared event is its namespace's
   * (`servers:added` only from the servers service), a hook `before_x`/`after_x` its action's
   * owner's; anything else must be a name in a namespace no service owns (a plugin's custom
   * events travel as `~custom:<plugin>:<event>`). `namespace`: the sender's (a service's), or
   * undefined for a plugin.
   */
  assertMayEmit(
    namespace: string | undefined,
    name: string,
    actionOwner: (action: string) => string | undefined,
  ): void {
    const declared = this.#events.get(name)
    const hook = /^(before|after)_(.+)$/.exec(name)
    const owner = declared?.owner ?? (hook ? actionOwner(hook[2] as string) : undefined)
    if (owner !== undefined) {
      if (owner === namespace) return
      throw new SmError('SM_ERR_BUS_NOT_OWNER', { event: name, owner, sender: namespace ?? 'a plugin' })
    }
    const colon = name.indexOf(':')
    const ns = colon > 0 ? name.slice(0, colon) : undefined
    if (ns === undefined || this.#owners.has(ns)) throw new SmError('SM_ERR_BUS_UNDECLARED', { kind: 'event', name })
  }

  commands(): readonly MessageEntry<CommandSpec>[] {
    return [...this.#commands.values()]
  }

  events(): readonly MessageEntry<z.ZodType>[] {
    return [...this.#events.values()]
  }

  isDeclaredCommand(name: string): boolean {
    return this.#commands.has(name)
  }

  /**
   * A command's payload as its schema reads it (unknown fields dropped), for a caller on the
   * other side of a boundary: an undeclared command or a payload that does not fit is a coded
   * 4xx-class error, never an internal one.
   */
  checkCommand(name: string, payload: unknown): unknown {
    const entry = this.#commands.get(name)
    if (!entry) throw new SmError('SM_ERR_BUS_UNDECLARED', { kind: 'command', name })
    return parsed(entry.spec.payload, payload, 'command', name)
  }

  /**
   * A declared event's payload as its schema reads it: a declared action's `before_<action>` by
   * its payload's schema (`actionPayload`), its `after_<action>` by that and its `result`. An
   * undeclared name passes (custom events are the plugins').
   */
  checkEvent(name: string, payload: unknown, actionPayload: (action: string) => z.ZodType | undefined): unknown {
    const entry = this.#events.get(name)
    if (entry) return parsed(entry.spec, payload, 'event', name)
    const hook = /^(before|after)_(.+)$/.exec(name)
    const schema = hook ? actionPayload(hook[2] as string) : undefined
    if (!schema) return payload
    const fields = parsed(schema, payload, 'event', name) as object
    if (hook?.[1] === 'before') return fields
    return { ...fields, ...(parsed(afterFields, payload, 'event', name) as object) }
  }

  /** Checks a reply against its command's schema (the test build checks every reply). */
  checkReply(name: string, reply: unknown): unknown {
    const entry = this.#commands.get(name)
    return entry ? parsed(entry.spec.reply, reply, 'reply of', name) : reply
  }
}

function parsed(schema: z.ZodType, value: unknown, kind: string, name: string): unknown {
  const result = schema.safeParse(value)
  if (result.success) return result.data
  throw new SmError('SM_ERR_BUS_BAD_PAYLOAD', { kind, name, issues: describeIssues(result.error) })
}

/** Zod's issues as one line: `name: Expected string, received number; …`. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.length ? issue.path.join('.') : '(payload)'}: ${issue.message}`)
    .join('; ')
}
