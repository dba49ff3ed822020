/**
 * The typed contracts of the bus. Each service extends these interfaces by declaration
 * merging in its `contract.ts`, e.g.
 *
 * ```ts
 * declare module '../../kernel/maps' {
 *   interface EventMap { after_setting_update: SettingUpdate & { result: ActionResult } }
 *   interface CommandMap { 'settings:get': { payload: { key: string }; reply: unknown } }
 * }
 * ```
 *
 * so every `emit` and `request` is checked end to end without services importing each other.
 */

// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging
export interface EventMap {}

// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging
export interface CommandMap {}

/** Values the composition root hands to every service (`dataDir`, ...), also merged per service. */
// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging
export interface KernelConfig {}

export type EventName = keyof EventMap & string
export type CommandName = keyof CommandMap & string

/** A namespaced event outside the typed map (plugin custom events: `<namespace>:<event>`). */
export type CustomEventName = `${string}:${string}`

export type PayloadOf<K extends string> = K extends EventName ? EventMap[K] : unknown

type CommandShape = { payload: unknown; reply: unknown }
export type CommandPayload<K extends CommandName> = CommandMap[K] extends CommandShape
  ? CommandMap[K]['payload']
  : never
export type CommandReply<K extends CommandName> = CommandMap[K] extends CommandShape ? CommandMap[K]['reply'] : never
