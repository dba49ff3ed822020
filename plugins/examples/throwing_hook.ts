import { PluginBase } from 'server-manager'

/** A broken plugin on purpose: its hook throws on every setting change. The change still happens. */
export default class ThrowingHook extends PluginBase<ThrowingHook> {
  static version = '1.0.0'

  beforeSettingUpdate() {
    throw new Error('this hook always fails')
  }
}
