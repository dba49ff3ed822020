import type { ApiKind } from './api-operation'
import type { ApiFromTable } from './api-table'
import type { CustomEventMeta } from './contract'

export type {
  GameProfile,
  HotBackupProtocol,
  PlayerList,
  PlayersProtocol,
  ServerStatus,
  WorldLocation,
} from '../servers/contract'
export type { Done } from './api-operation'

/** A listener for a custom event: the sender's payload, and who sent it. */
export type CustomEventListener = (payload: Record<string, unknown>, meta: CustomEventMeta) => unknown

/** One operation of `this.api`, as `listAvailableApis()` describes it. */
export interface ApiDescription {
  readonly name: string
  /** Other names it answers to (the seed's snake_case names). */
  readonly aliases: readonly string[]
  /** `read`: only looks; `change`: acts. */
  readonly kind: ApiKind
  readonly parameters: readonly { readonly name: string; readonly type: string; readonly default?: string }[]
  readonly description: string
}

/**
 * `this.api`: the plugin's gateway to the manager, as `services/plugins/api-table.ts` and the
 * commands' `api` doors (api-commands.ts) declare it (docs/plugins.md has the reference,
 * `listAvailableApis()` the same at run time). Every operation is async and resolves to plain JSON values: a read to what it read, a change to its
 * result (`{ status: 'success', message, ... }` for actions and settings). Every failure rejects
 * with a coded `SmError`, a bad argument (`SM_ERR_PLUGIN_API_BAD_ARGUMENT`) and a veto by a
 * `before_*` hook (`SM_ERR_SERVER_CHANGE_CANCELLED`, `SM_ERR_SETTINGS_UPDATE_CANCELLED`, with
 * `params.by` and `params.reason`) included. Calls are made on the plugin's behalf
 * (`plugin:<name>` in the event log). No operation returns secrets.
 */
export interface PluginApi extends ApiFromTable {}
