import { PluginStatusCommand } from '../../plugin-status-command'

export default class PluginDisable extends PluginStatusCommand {
  static override summary = 'Disable a plugin and unload it now (and in a running manager)'
  static override examples = ['<%= config.bin %> plugin disable greeter']
  protected readonly enabled = false
}
