import type { z } from 'zod'
import {
  type ApiDoor,
  type ApiParam,
  type CommandName,
  type CommandPayload,
  type CommandSpec,
  doorMessage,
  type MessageEntry,
} from '../../kernel'
import { serversCommands } from '../servers/contract'
import { type Args, change, type Done, done, type Operation, type Param, read } from './api-operation'

/**
 * `this.api`'s operations that are one command each, derived from the `api` door its contract
 * declares (kernel/command-doors.ts): its arguments are payload fields, checked by the payload's
 * own schemas, and it resolves to the reply (a change: with `status: 'success'` and its message).
 * What does more (reshapes, masks, calls several commands, takes a function) stays in
 * api-table.ts.
 */
export function commandOperations(commands: readonly MessageEntry<CommandSpec>[]): Record<string, Operation> {
  return Object.fromEntries(
    commands.flatMap(({ name, spec }) => {
      const door = spec.doors?.api
      if (!door) return []
      let operation = made.get(spec)
      if (!operation) {
        operation = operationOf(name as CommandName, spec, door)
        made.set(spec, operation)
      }
      return [[door.name, operation] as const]
    }),
  )
}

/** Each door's operation, made once per declaration (each plugin's gateway asks for all of them at its load). */
const made = new WeakMap<CommandSpec, Operation>()

/** The commands a CLI process offers through a plugin's `this.api` (it has no kernel): the servers'. */
export const CLI_API_COMMANDS: readonly MessageEntry<CommandSpec>[] = Object.entries(serversCommands).map(
  ([name, spec]) => ({ name, owner: 'servers', spec }),
)

function operationOf(command: CommandName, spec: CommandSpec, door: ApiDoor): Operation {
  const shape = (spec.payload as Partial<z.ZodObject>).shape ?? {}
  const fields = door.params.map((param) => (typeof param === 'string' ? { field: param } : param))
  const params: Param[] = fields.map(({ field, as, schema, default: fallback }) => {
    const checked = schema ?? shape[field]
    if (!checked) throw new Error(`the api door ${door.name} of ${command} names ${field}, no field of its payload`)
    return [as ?? field, fallback === undefined ? checked : checked.meta({ default: fallback })]
  })
  const declare = door.kind === 'read' ? read : change
  return declare({
    aliases: door.aliases ?? [],
    params,
    description: door.description,
    run: async (ctx, ...args: unknown[]) => {
      const payload: Record<string, unknown> = {}
      fields.forEach(({ field }, i) => {
        if (args[i] !== undefined) payload[field] = args[i]
      })
      const reply = await ctx.link.request(command, payload as CommandPayload<CommandName>)
      return door.message === undefined ? reply : done(reply as object, doorMessage(door.message, payload))
    },
  })
}

/** The api door a command declares, as its literal type. */
type DoorOf<S> = S extends { readonly doors?: infer D } ? (NonNullable<D> extends { api: infer A } ? A : never) : never

type FieldOf<Q> = Q extends string ? Q : Q extends { readonly field: infer F extends string } ? F : never

/** One argument's schema, as a parameter of the operations table (`Param`), for `Args`. */
type ParamOf<P extends z.ZodType, Q> = Q extends { readonly schema: infer S extends z.ZodType }
  ? readonly [string, S]
  : P extends z.ZodObject<infer Shape>
    ? readonly [string, Shape[FieldOf<Q> & keyof Shape]]
    : never

type ParamsOf<P extends z.ZodType, Q> = { -readonly [I in keyof Q]: ParamOf<P, Q[I]> }

type NamesOf<A> = A extends { readonly name: infer N extends string }
  ? N | (A extends { readonly aliases: readonly (infer L extends string)[] } ? L : never)
  : never

/**
 * The operations a set of commands offers `this.api`, typed from their doors: each under its
 * name and aliases, its arguments the payload fields' inputs (an optional one omittable), its
 * result the reply (a change: `Done`), as precise as a hand-written operation's.
 */
export type ApiOfCommands<T> = {
  readonly [K in keyof T as NamesOf<DoorOf<T[K]>>]: T[K] extends CommandSpec<infer P, infer R>
    ? DoorOf<T[K]> extends { readonly params: infer Q extends readonly ApiParam[] }
      ? (
          ...args: Args<ParamsOf<P, Q> extends infer L extends readonly Param[] ? L : never>
        ) => Promise<DoorOf<T[K]> extends { readonly message: string } ? Done<z.output<R> & object> : z.output<R>>
      : never
    : never
}

/** `this.api`'s derived operations, typed: those the servers' commands declare. */
export type ApiFromCommands = ApiOfCommands<typeof serversCommands>
