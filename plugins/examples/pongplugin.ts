import { type CustomEventMeta, PluginBase } from 'server-manager'

/** Listens for `pingplugin:ping` and remembers the last one in `custom.pong_last`. */
export default class PongPlugin extends PluginBase<PongPlugin> {
  static version = '1.1.0'

  override async onLoad() {
    await this.api.listenForEvent('pingplugin:ping', (payload, meta) => this.pong(payload, meta))
  }

  private async pong(payload: Record<string, unknown>, meta: CustomEventMeta) {
    this.logger.info(`pong: ${String(payload.message ?? '')} (from ${meta.sender})`)
    await this.api.setCustomGlobalSetting('pong_last', { ...payload, sender: meta.sender })
  }
}
