import { SmError } from '../../../../kernel/errors'
import { ManagerCommand } from '../../manager-command'

export default class WebStop extends ManagerCommand {
  static override summary = 'Stop the running manager (and with it the web server), as Ctrl-C would'
  static override description =
    'Asks the manager of the data directory to stop cleanly: web requests in flight finish, plugins unload, services stop. Game servers keep running under their supervisors. Fails if no manager runs.'
  static override examples = ['<%= config.bin %> web stop']

  async run(): Promise<void> {
    await this.parse(WebStop)
    const client = await this.runningManager()
    if (!client) throw new SmError('SM_ERR_MANAGER_NOT_RUNNING', { dataDir: this.dataDir })
    const closed = new Promise((resolve) => client.onClose(resolve))
    try {
      const { pid } = (await client.request('manager:stop', {}, this.actor)) as { pid: number }
      // The manager closes its side once it has stopped.
      await closed
      this.log(`The manager (PID ${pid}) stopped.`)
    } finally {
      client.close()
    }
  }
}
