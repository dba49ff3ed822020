import type { ActionResult } from './action'

/**
 * The typed contracts of the bus. Each service declares its commands and events as schemas in
 * its `contract.ts` (kernel/contract-catalogue.ts) and merges their types in here:
 *
 * ```ts
 * export const settingsCommands = defineCommands('settings', {
 *   'settings:get': command(z.object({ key: z.string() }), z.object({ found: z.boolean() })),
 * })
 * declare module '../../kernel/maps' {
 *   interface CommandMap extends CommandsOf<typeof settingsCommands> {}
 * }
 * ```
 *
 * so every `emit` and `request` is checked end to end, by the compiler and at every boundary,
 * without services importing each other. Actions merge into `ActionMap` (their hooks).
 */

// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging
export interface EventMap {}

// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging
export interface CommandMap {}

/**
 * The actions a plugin can hook: each name maps to its payload, and becomes the events
 * `before_<name>` (the payload; a listener may veto) and `after_<name>` (the payload and its
 * `result`). The service that performs an action declares it once, with `defineActions` in its
 * `actions.ts` (its payload's schema, identity keys, a summary); the types merged here come from
 * those schemas (`ActionsOf`).
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging
export interface ActionMap {}

export type ActionName = keyof ActionMap & string

/** The events the actions make: `before_<name>` and `after_<name>`. */
export type ActionEvents = { [A in ActionName as `before_${A}`]: ActionMap[A] } & {
  [A in ActionName as `after_${A}`]: ActionMap[A] & { readonly result: ActionResult }
}

/** Values the composition root hands to every service (`dataDir`, ...), also merged per service. */
// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging
export interface KernelConfig {}

export type EventName = (keyof EventMap | keyof ActionEvents) & string
export type CommandName = keyof CommandMap & string

/** A namespaced event outside the typed map (plugin custom events: `<namespace>:<event>`). */
export type CustomEventName = `${string}:${string}`

export type PayloadOf<K extends string> = K extends keyof EventMap
  ? EventMap[K]
  : K extends keyof ActionEvents
    ? ActionEvents[K]
    : unknown

type CommandShape = { payload: unknown; reply: unknown }
export type CommandPayload<K extends CommandName> = CommandMap[K] extends CommandShape
  ? CommandMap[K]['payload']
  : never
export type CommandReply<K extends CommandName> = CommandMap[K] extends CommandShape ? CommandMap[K]['reply'] : never
