import type { ActionResult } from '../../kernel'
import type { CustomEventMeta, DeliveryReport, PluginRecord } from './contract'

/** A listener for a custom event: the sender's payload, and who sent it. */
export type CustomEventListener = (payload: Record<string, unknown>, meta: CustomEventMeta) => unknown

/** One operation of `this.api`, as `listAvailableApis()` describes it. */
export interface ApiDescription {
  readonly name: string
  readonly parameters: readonly { readonly name: string; readonly type: string; readonly default?: string }[]
  readonly description: string
}

/**
 * `this.api`: the plugin's gateway to the manager. Every operation is async and returns plain
 * JSON values; actions return an `ActionResult` instead of throwing. Calls are made on the
 * plugin's behalf (`plugin:<name>` in the event log). No operation returns secrets.
 */
export interface PluginApi {
  /** Sends a custom event `<namespace>:<event>` to every listener; resolves to who got it. */
  sendEvent(name: string, payload?: Record<string, unknown>): Promise<DeliveryReport>
  /**
   * Listens for a custom event; removed automatically when the plugin unloads or reloads.
   * Resolves to a function that stops listening earlier.
   */
  listenForEvent(name: string, listener: CustomEventListener): Promise<() => void>
  /** A global setting's value (`web.port`, `custom.<key>`), or `undefined` when it has none. */
  getGlobalSetting(key: string): Promise<unknown>
  /** Stores `value` under `custom.<key>` (a recorded, vetoable setting change). */
  setCustomGlobalSetting(key: string, value: unknown): Promise<ActionResult>
  /** Every known plugin with its enabled flag, version, author, description and state. */
  getPluginStatuses(): Promise<
    Record<string, Pick<PluginRecord, 'enabled' | 'version' | 'author' | 'description' | 'state'>>
  >
  /** The operations of this API, with their parameters and a one-line description. */
  listAvailableApis(): Promise<ApiDescription[]>
}
