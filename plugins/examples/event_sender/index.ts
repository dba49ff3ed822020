import { PluginBase } from 'server-manager'
import { echoOf } from './format'

/**
 * A package plugin (a folder with index.ts and other modules): it answers every
 * `event_sender:echo` with an `event_sender:echoed` event carrying the payload back.
 */
export default class EventSender extends PluginBase<EventSender> {
  static version = '1.2.0'

  override async onLoad() {
    await this.api.listenForEvent('event_sender:echo', async (payload, meta) => {
      await this.api.sendEvent('event_sender:echoed', echoOf(payload, meta.sender))
    })
  }
}
