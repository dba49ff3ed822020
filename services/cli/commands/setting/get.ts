import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { SmError } from '../../../../kernel/errors'
import { ManagerCommand } from '../../manager-command'
import { formatValue } from '../../setting-value'

export default class SettingGet extends ManagerCommand {
  protected override loadsPlugins = false
  protected override services = ['settings'] as const
  static override summary = 'Print a global setting'
  static override description =
    'Prints the stored value, or the default when none is stored. Exits 1 when the key has neither. A secret (a key declared or marked secret, or named like one: password, token, pw, pin, api_key, webhook...) prints as [redacted], also inside an object; --reveal prints it as it is.'
  static override examples = [
    '<%= config.bin %> setting get web.port',
    '<%= config.bin %> setting get custom.greeting --json',
    '<%= config.bin %> setting get custom.rcon_pw --reveal',
  ]
  static override args = {
    key: Args.string({ description: 'dot path, e.g. web.port or custom.greeting', required: true }),
  }
  static override flags = {
    json: Flags.boolean({ description: 'print the value as JSON' }),
    reveal: Flags.boolean({ description: "print a secret's real value (it is this data directory's user's to read)" }),
  }

  async run(): Promise<void> {
    const { args, flags } = await this.parse(SettingGet)
    const reply = await this.request(
      'settings:get',
      flags.reveal ? { key: args.key } : { key: args.key, redact: 'mask' },
    )
    if (!reply.found) throw new SmError('SM_ERR_SETTINGS_NOT_FOUND', { key: args.key })
    this.log(flags.json ? JSON.stringify(reply.value) : formatValue(reply.value))
  }
}
