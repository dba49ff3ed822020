import * as Flags from '@oclif/core/flags'
import { ManagerCommand } from '../../manager-command'

export default class PluginReload extends ManagerCommand {
  static override summary = 'Unload every plugin, discover them again and load the enabled ones (running changed code)'
  static override examples = ['<%= config.bin %> plugin reload', '<%= config.bin %> plugin reload --json']
  static override flags = { json: Flags.boolean({ description: 'print the result as JSON' }) }

  async run(): Promise<void> {
    const { flags } = await this.parse(PluginReload)
    const report = await this.request('plugins:reload', {})
    if (flags.json) return this.printJson(report)
    this.log(
      `Loaded ${report.loaded.length} plugins${report.loaded.length ? ` (${report.loaded.join(', ')})` : ''} in ${report.ms.toFixed(0)} ms.`,
    )
    if (report.failed.length) this.log(`Failed: ${report.failed.join(', ')} (see: server-manager plugin list)`)
  }
}
