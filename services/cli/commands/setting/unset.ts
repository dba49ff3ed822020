import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { ManagerCommand } from '../../manager-command'
import { formatValue } from '../../setting-value'

export default class SettingUnset extends ManagerCommand {
  static override summary = 'Remove a stored setting (a declared one returns to its default)'
  static override description =
    "Fires before_setting_update and after_setting_update like any change (mode 'unset'), so plugins may veto it. A custom.<key> that holds nothing is an error."
  static override examples = ['<%= config.bin %> setting unset web.port', '<%= config.bin %> setting unset custom.motd']
  static override args = {
    key: Args.string({ description: 'dot path, e.g. web.port or custom.greeting', required: true }),
  }
  static override flags = { json: Flags.boolean({ description: 'print the change as JSON' }) }

  async run(): Promise<void> {
    const { args, flags } = await this.parse(SettingUnset)
    const change = await this.request('settings:unset', { key: args.key })
    if (flags.json) return this.printJson(change)
    const now = change.value === undefined ? 'unset' : `back to its default ${formatValue(change.value)}`
    const below = change.removed.filter((key) => key !== change.key)
    this.log(`${change.key}: ${now}${below.length ? ` (removed: ${below.join(', ')})` : ''}`)
  }
}
