/**
 * The plugin SDK: what `import … from 'server-manager'` gives a plugin. It holds the base class,
 * the hook and payload types and the `this.api` types, and nothing of the kernel or the
 * services, so a plugin cannot boot its own manager or reach past `this.api`. Programs that
 * embed the manager import `server-manager/manager` instead.
 */
export type { ActionMap, ActionName, ActionResult, LogFields, Logger } from './kernel'
// The actions plugins can hook, declared by the services that perform them: exporting their
// types puts the declarations (payloads, hook method names) into every plugin's type-check.
export type { FilesActions } from './services/files/actions'
export type { PluginsActions } from './services/plugins/actions'
export type * from './services/plugins/contract'
export type { AfterPayload, BeforeHookResult, BeforePayload } from './services/plugins/hook-catalogue'
export type {
  ApiDescription,
  CustomEventListener,
  Done,
  GameProfile,
  HotBackupProtocol,
  PlayerList,
  PlayersProtocol,
  PluginApi,
  ServerStatus,
  WorldLocation,
} from './services/plugins/plugin-api'
export { type CheckedPlugin, PluginBase, type PluginContext } from './services/plugins/plugin-base'
export type { PluginHooks } from './services/plugins/plugin-hooks'
export { PLUGIN_API_VERSION } from './services/plugins/plugin-module'
export type { ServersActions } from './services/servers/actions'
export type { SettingsActions } from './services/settings/actions'
export type { SettingUpdate } from './services/settings/contract'
