import { PluginStatusCommand } from '../../plugin-status-command'

export default class PluginEnable extends PluginStatusCommand {
  static override summary = 'Enable a plugin and load it now (and in a running manager)'
  static override examples = ['<%= config.bin %> plugin enable greeter']
  protected readonly enabled = true
}
