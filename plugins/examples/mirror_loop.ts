import { type BeforePayload, PluginBase } from 'server-manager'

/**
 * Shows the guard on standard hooks: when `custom.mirror` changes, this hook changes it again,
 * which fires `before_setting_update` for the same key inside the first one. The nested
 * dispatch is skipped for the plugins (the change itself still happens), so it cannot loop.
 */
export default class MirrorLoop extends PluginBase<MirrorLoop> {
  static version = '1.0.0'

  async beforeSettingUpdate({ key, value }: BeforePayload<'setting_update'>) {
    if (key !== 'custom.mirror') return
    await this.api.setCustomGlobalSetting('mirror', `${String(value)} (mirrored)`)
  }
}
