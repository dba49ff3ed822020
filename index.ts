/**
 * The plugin SDK: what `import … from 'server-manager'` gives a plugin. It holds the base class,
 * the hook and payload types and the `this.api` types, and nothing of the kernel or the
 * services, so a plugin cannot boot its own manager or reach past `this.api`. Programs that
 * embed the manager import `server-manager/manager` instead.
 */
export type { ActionResult, LogFields, Logger } from './kernel'
export type * from './services/plugins/contract'
export type {
  ActionName,
  ActionPayloads,
  AfterPayload,
  BeforeHookResult,
  BeforePayload,
} from './services/plugins/hook-catalogue'
export type { ApiDescription, CustomEventListener, PluginApi } from './services/plugins/plugin-api'
export { type CheckedPlugin, PluginBase, type PluginContext } from './services/plugins/plugin-base'
export type { PluginHooks } from './services/plugins/plugin-hooks'
export { PLUGIN_API_VERSION } from './services/plugins/plugin-module'
export type { SettingUpdate } from './services/settings/contract'
