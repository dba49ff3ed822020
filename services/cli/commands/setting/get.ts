import { Args, Flags } from '@oclif/core'
import { SmError } from '../../../../kernel/errors'
import { ManagerCommand } from '../../manager-command'
import { formatValue } from '../../setting-value'

export default class SettingGet extends ManagerCommand {
  protected override loadsPlugins = false
  static override summary = 'Print a global setting'
  static override description =
    'Prints the stored value, or the default when none is stored. Exits 1 when the key has neither.'
  static override examples = [
    '<%= config.bin %> setting get web.port',
    '<%= config.bin %> setting get custom.greeting --json',
  ]
  static override args = {
    key: Args.string({ description: 'dot path, e.g. web.port or custom.greeting', required: true }),
  }
  static override flags = { json: Flags.boolean({ description: 'print the value as JSON' }) }

  async run(): Promise<void> {
    const { args, flags } = await this.parse(SettingGet)
    const reply = await this.request('settings:get', { key: args.key })
    if (!reply.found) throw new SmError('SM_ERR_SETTINGS_NOT_FOUND', { key: args.key })
    this.log(flags.json ? JSON.stringify(reply.value) : formatValue(reply.value))
  }
}
