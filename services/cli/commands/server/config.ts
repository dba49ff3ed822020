import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { SmError } from '../../../../kernel/errors'
import type { ServerSettingView } from '../../../servers/contract'
import { ManagerCommand } from '../../manager-command'
import { formatValue, parseValue } from '../../setting-value'

export default class ServerConfig extends ManagerCommand {
  protected override loadsPlugins = false
  static override summary =
    "Show or change a server's own settings (autostart, restart and backup policy, custom values)"
  static override description =
    'With no key, lists every setting in effect. restart.* and backup.hot inherit the global servers.* settings until set here; --unset makes them inherit again. Plugins keep their values under custom.<key>. Values are JSON when they parse as JSON (true, 5, {"a":1}), else text.'
  static override examples = [
    '<%= config.bin %> server config survival',
    '<%= config.bin %> server config survival autostart true',
    '<%= config.bin %> server config survival restart.max_restarts 5',
    '<%= config.bin %> server config survival restart.max_restarts --unset',
  ]
  static override args = {
    name: Args.string({ description: 'the server name', required: true }),
    key: Args.string({ description: 'the setting (autostart, restart.enabled, ..., custom.<key>)' }),
    value: Args.string({ description: 'the new value' }),
  }
  static override flags = {
    unset: Flags.boolean({ description: 'remove its own value (it inherits or takes its default again)' }),
    json: Flags.boolean({ description: 'print JSON' }),
  }

  async run(): Promise<void> {
    const { args, flags } = await this.parse(ServerConfig)
    if (args.value === undefined && !flags.unset) {
      const { value } = await this.request('servers:get_setting', { name: args.name, key: args.key })
      if (flags.json) return this.printJson(value)
      if (args.key !== undefined) return this.log(formatValue(value))
      for (const [key, v] of Object.entries(value as Record<string, unknown>)) this.log(`${key} = ${formatValue(v)}`)
      return
    }
    if (args.key === undefined)
      throw new SmError('SM_ERR_CLI_MISSING_ARGUMENT', {
        reason: 'name the setting to unset: server config <name> <key> --unset',
      })
    const value = flags.unset ? undefined : parseValue(args.value as string, { name: args.key })
    // What it was in effect, and from where, when the server had no value of its own.
    const key = args.key
    const before = flags.json
      ? undefined
      : (await this.request('servers:settings', { name: args.name })).find((view) => view.key === key)
    const change = await this.request('servers:set_setting', { name: args.name, key, value })
    if (flags.json) return this.printJson(change)
    const was = wasText(change.previous, before)
    if (flags.unset) {
      const now = change.value === undefined ? '' : `; in effect now: ${formatValue(change.value)}`
      return this.log(`${args.name}: ${change.key} has no value of its own (${was})${now}`)
    }
    this.log(`${args.name}: ${change.key} = ${formatValue(change.value)} (${was})`)
  }
}

/** What a setting was in effect before a change: its own value, one it followed (a global setting, its default), or none. */
function wasText(previous: unknown, before: ServerSettingView | undefined): string {
  if (previous === undefined) return 'it had none'
  if (!before || before.own) return `was ${formatValue(previous)}`
  return `was ${formatValue(previous)}, ${before.inherits ? `inherited from ${before.inherits}` : 'its default'}`
}
