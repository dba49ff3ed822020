import { type BeforePayload, PluginBase } from 'server-manager'

/** Vetoes every change to a setting under `custom.locked`: the change does not happen. */
export default class Veto extends PluginBase<Veto> {
  static version = '1.0.0'

  beforeSettingUpdate({ key }: BeforePayload<'setting_update'>) {
    if (key === 'custom.locked' || key.startsWith('custom.locked.'))
      return { cancel: true, reason: 'custom.locked is read-only' } as const
    return undefined
  }
}
