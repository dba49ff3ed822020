import { Args, Flags } from '@oclif/core'
import { parseValue } from '../../format'
import { ManagerCommand } from '../../manager-command'

export default class SettingSet extends ManagerCommand {
  static override summary = 'Change a global setting'
  static override description =
    'The value is parsed as JSON when it is JSON (8080, true, {"a":1}, "quoted"), else stored as a string. Plugin data goes under custom.<key>.'
  static override examples = [
    '<%= config.bin %> setting set web.port 8080',
    '<%= config.bin %> setting set custom.greeting hello',
    '<%= config.bin %> setting set custom.motd \'{"text":"hi","daily":true}\'',
  ]
  static override args = {
    key: Args.string({ description: 'dot path, e.g. web.port or custom.greeting', required: true }),
    value: Args.string({ description: 'the new value (JSON, or plain text)', required: true }),
  }
  static override flags = { json: Flags.boolean({ description: 'print the change as JSON' }) }

  async run(): Promise<void> {
    const { args, flags } = await this.parse(SettingSet)
    const change = await this.request('settings:set', { key: args.key, value: parseValue(args.value) })
    if (flags.json) this.printJson(change)
  }
}
