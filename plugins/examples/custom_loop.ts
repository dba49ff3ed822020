import { PluginBase } from 'server-manager'

/**
 * Shows the loop guard: `custom_loop:event_x` sends `event_y`, whose listener sends
 * `event_x` again. That second `event_x` is part of the same causal chain, so it is not
 * delivered again and the loop ends. The rounds are counted in `custom.custom_loop_rounds`.
 */
export default class CustomLoop extends PluginBase<CustomLoop> {
  static version = '1.1.0'
  private rounds = 0

  override async onLoad() {
    await this.api.listenForEvent('custom_loop:event_x', async () => {
      this.rounds += 1
      await this.api.setCustomGlobalSetting('custom_loop_rounds', this.rounds)
      await this.api.sendEvent('custom_loop:event_y', { round: this.rounds })
    })
    await this.api.listenForEvent('custom_loop:event_y', async () => {
      const report = await this.api.sendEvent('custom_loop:event_x', {})
      this.logger.info(`event_x sent back from event_y: skipped by the guard = ${report.skipped}`)
    })
  }
}
