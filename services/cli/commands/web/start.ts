import { ManagerCommand } from '../../manager-command'

export default class WebStart extends ManagerCommand {
  static override summary = 'Start the manager with the web server in the background (start --detached)'
  static override description =
    'The web UI and API run inside the manager: this starts it in the background and returns once it answers, printing the URL.'
  static override examples = ['<%= config.bin %> web start']

  async run(): Promise<void> {
    await this.parse(WebStart)
    await this.config.runCommand('start', ['--detached'])
  }
}
