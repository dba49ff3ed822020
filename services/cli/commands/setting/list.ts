import * as Flags from '@oclif/core/flags'
import { ManagerCommand } from '../../manager-command'

export default class SettingList extends ManagerCommand {
  protected override loadsPlugins = false
  protected override services = ['settings'] as const
  static override summary = 'Print every global setting (defaults merged with stored values; secrets as [redacted])'
  static override examples = ['<%= config.bin %> setting list', '<%= config.bin %> setting list --json']
  static override flags = { json: Flags.boolean({ description: 'print compact JSON' }) }

  async run(): Promise<void> {
    const { flags } = await this.parse(SettingList)
    const all = await this.request('settings:get_all', { redact: 'mask' })
    this.log(flags.json ? JSON.stringify(all) : JSON.stringify(all, null, 2))
  }
}
