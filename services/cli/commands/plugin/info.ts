import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { ManagerCommand } from '../../manager-command'

export default class PluginInfo extends ManagerCommand {
  protected override loadsPlugins = false
  static override summary = 'Show one plugin: metadata, state, hooks and failures'
  static override examples = ['<%= config.bin %> plugin info greet', '<%= config.bin %> plugin info greet --json']
  static override args = { name: Args.string({ description: 'the plugin name', required: true }) }
  static override flags = { json: Flags.boolean({ description: 'print JSON' }) }

  async run(): Promise<void> {
    const { args, flags } = await this.parse(PluginInfo)
    const info = await this.request('plugins:info', { name: args.name })
    if (flags.json) return this.printJson(info)
    const lines: [string, string][] = [
      ['name', info.name],
      ['version', info.version || '-'],
      ['author', info.author],
      ['description', info.description || '-'],
      ['source', `${info.source} (${info.path})`],
      ['enabled', info.enabled ? 'yes' : 'no'],
      ['state', info.state],
      ['hooks', info.hooks.length ? info.hooks.join(', ') : '-'],
      ['listeners', String(info.listeners)],
      [
        'hook failures',
        info.hookFailures
          ? `${info.hookFailures} (last: ${info.lastHookError?.event}: ${info.lastHookError?.message})`
          : '0',
      ],
    ]
    if (info.error) lines.push(['error', `${info.error.code}: ${info.error.message}`])
    if (info.blocked)
      lines.push([
        'blocked',
        `since ${info.blocked.at} (${blockedWhy(info.error?.code, info.blocked.hook)}); kept out until 'plugin enable ${info.name}' or 'plugin reload'`,
      ])
    for (const [key, value] of lines) this.log(`${key.padEnd(14)}${value}`)
  }
}

/** Why a plugin was blocked, by the code that blocked it. */
function blockedWhy(code: string | undefined, hook: string): string {
  if (code === 'SM_ERR_PLUGIN_BLOCKED_LOOP') return `it blocked the event loop in ${hook}`
  if (code === 'SM_ERR_PLUGIN_CRASH_LOOP') return `the manager's process died while it was ${hook}, starts in a row`
  return `its thread failed too often, last in ${hook}`
}
