import { PluginBase } from 'server-manager'

/**
 * A broken plugin on purpose: its hook never finishes. The manager abandons it after
 * `plugins.hook_timeout_ms` and the change goes on.
 */
export default class HangingHook extends PluginBase<HangingHook> {
  static version = '1.0.0'

  beforeSettingUpdate() {
    return new Promise<undefined>(() => {})
  }
}
