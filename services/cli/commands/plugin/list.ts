import * as Flags from '@oclif/core/flags'
import { table } from '../../format'
import { ManagerCommand } from '../../manager-command'

export default class PluginList extends ManagerCommand {
  protected override loadsPlugins = false
  static override summary = 'List every plugin found, with its state'
  static override examples = ['<%= config.bin %> plugin list', '<%= config.bin %> plugin list --json']
  static override description =
    'States: loaded, disabled, failed (enabled but broke while loading), invalid (cannot load: no version, a syntax error, ...), missing (gone from disk).'
  static override flags = { json: Flags.boolean({ description: 'print the registry as JSON' }) }

  async run(): Promise<void> {
    const { flags } = await this.parse(PluginList)
    const plugins = await this.request('plugins:list', {})
    if (flags.json) return this.printJson(plugins)
    if (plugins.length === 0) return this.log('No plugins found. Create one with: server-manager plugin new <name>')
    const rows = plugins.map((p) => [
      p.name,
      p.state,
      p.enabled ? 'yes' : 'no',
      p.version || '-',
      p.source,
      p.hookFailures ? `${p.hookFailures} hook failures` : '',
      p.error ? `${p.error.code}: ${p.error.message}` : '',
    ])
    const header = ['NAME', 'STATE', 'ENABLED', 'VERSION', 'SOURCE', 'HOOKS', 'ERROR']
    for (const line of table(header, rows)) this.log(line)
  }
}
