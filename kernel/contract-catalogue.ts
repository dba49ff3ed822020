import { z } from 'zod'
import type { CommandDoors } from './command-doors'
import { SmError } from './errors'

/**
 * The bus's messages, declared once. Each service declares its commands (payload and reply)
 * and its events with zod schemas in its `contract.ts`; the types of `CommandMap` and
 * `EventMap` come from them (`interface CommandMap extends CommandsOf<typeof commands> {}`),
 * and whatever crosses a boundary (the bridge, the HTTP API, a plugin's call) is checked
 * against them here. Every schema is plain data: what a JSON round trip keeps. Whatever is not
 * data (a projection's reader, a task's work, a plugin's routers) is a capability in the
 * registry, never a message.
 */
export interface CommandSpec<P extends z.ZodType = z.ZodType, R extends z.ZodType = z.ZodType> {
  readonly payload: P
  readonly reply: R
  /** The doors it is offered through (HTTP, `this.api`, host routing), where it says. */
  readonly doors?: CommandDoors
}

/** A command: what it takes, what it answers, and the doors it is offered through. */
export const command = <P extends z.ZodType, R extends z.ZodType>(
  payload: P,
  reply: R,
  doors?: CommandDoors,
): CommandSpec<P, R> => (doors ? { payload, reply, doors } : { payload, reply })

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

const commands = new Map<string, MessageEntry<CommandSpec>>()
const events = new Map<string, MessageEntry<z.ZodType>>()
/** The namespaces that declared something: only their owners emit in them. */
const owners = new Set<string>()

function declare<S>(
  kind: string,
  table: Map<string, MessageEntry<S>>,
  owner: string,
  specs: Record<string, S>,
  formerly: Record<string, string | undefined> = {},
) {
  for (const [name, spec] of Object.entries(specs)) {
    // A name says who owns it: `<namespace>:<name>`, in the declaring namespace.
    if (!name.startsWith(`${owner}:`)) throw new Error(`${kind} ${name} is not in the namespace ${owner}: of its owner`)
    const known = table.get(name)
    if (known && known.spec !== spec) throw new Error(`${kind} ${name} is declared by both ${known.owner} and ${owner}`)
    table.set(name, { name, owner, spec, formerly: formerly[name] })
    owners.add(owner)
  }
}

/** Declares an owner's commands; returns them for `CommandsOf`. */
export function defineCommands<T extends Record<string, CommandSpec>>(owner: string, specs: T): T {
  declare('command', commands, owner, specs)
  return specs
}

/**
 * Declares a namespace's events (facts and live notices); returns them for `EventsOf`.
 * `formerly`: names they had before, which the event log renames its stored facts from.
 */
export function defineEvents<T extends Record<string, z.ZodType>>(
  owner: string,
  specs: T,
  formerly: { readonly [K in keyof T]?: string } = {},
): T {
  declare('event', events, owner, specs, formerly as Record<string, string | undefined>)
  return specs
}

/** Every rename of a declared event: the event log applies them to what it stored before. */
export function renamedEvents(): readonly { readonly from: string; readonly to: string }[] {
  return [...events.values()].flatMap(({ name, formerly }) => (formerly ? [{ from: formerly, to: name }] : []))
}

/**
 * Refuses an emit by a sender that does not own the event: a declared event is its namespace's
 * (`servers:added` only from the servers service), a hook `before_x`/`after_x` its action's
 * owner's; anything else must be a name in a namespace no service owns (a plugin's custom
 * events travel as `~custom:<plugin>:<event>`). `namespace`: the sender's (a service's), or
 * undefined for a plugin.
 */
export function assertMayEmit(
  namespace: string | undefined,
  name: string,
  actionOwner: (action: string) => string | undefined,
): void {
  const declared = events.get(name)
  const hook = /^(before|after)_(.+)$/.exec(name)
  const owner = declared?.owner ?? (hook ? actionOwner(hook[2] as string) : undefined)
  if (owner !== undefined) {
    if (owner === namespace) return
    throw new SmError('SM_ERR_BUS_NOT_OWNER', { event: name, owner, sender: namespace ?? 'a plugin' })
  }
  const colon = name.indexOf(':')
  const ns = colon > 0 ? name.slice(0, colon) : undefined
  if (ns === undefined || owners.has(ns)) throw new SmError('SM_ERR_BUS_UNDECLARED', { kind: 'event', name })
}

export function commandCatalogue(): readonly MessageEntry<CommandSpec>[] {
  return [...commands.values()]
}

export function eventCatalogue(): readonly MessageEntry<z.ZodType>[] {
  return [...events.values()]
}

export function isDeclaredCommand(name: string): boolean {
  return commands.has(name)
}

/**
 * A command's payload as its schema reads it (unknown fields dropped), for a caller on the
 * other side of a boundary: an undeclared command or a payload that does not fit is a coded
 * 4xx-class error, never an internal one.
 */
export function checkCommand(name: string, payload: unknown): unknown {
  const entry = commands.get(name)
  if (!entry) throw new SmError('SM_ERR_BUS_UNDECLARED', { kind: 'command', name })
  return parsed(entry.spec.payload, payload, 'command', name)
}

/** A declared event's payload as its schema reads it; an undeclared name passes (custom events are the plugins'). */
export function checkEvent(name: string, payload: unknown): unknown {
  const entry = events.get(name)
  return entry ? parsed(entry.spec, payload, 'event', name) : payload
}

/** Checks a reply against its command's schema (the test build checks every reply). */
export function checkReply(name: string, reply: unknown): unknown {
  const entry = commands.get(name)
  return entry ? parsed(entry.spec.reply, reply, 'reply of', name) : reply
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
