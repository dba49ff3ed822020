import * as Flags from '@oclif/core/flags'
import type { WebStatus } from '../../../web/contract'
import { ManagerCommand } from '../../manager-command'

/** Asks the running manager only: the web server lives in it. */
export default class WebStatusCommand extends ManagerCommand {
  static override summary = 'Say where the web UI and API listen (they run inside the manager)'
  static override description =
    'Asks the running manager (server-manager start) for its web server: the URL, the plugins whose routes are mounted, the number of routes and of live event-stream clients. Exits 0 either way; with --json, `listening` tells which.'
  static override examples = ['<%= config.bin %> web status', '<%= config.bin %> web status --json']
  static override flags = { json: Flags.boolean({ description: 'print the status as JSON' }) }

  async run(): Promise<void> {
    const { flags } = await this.parse(WebStatusCommand)
    const client = await this.runningManager()
    if (!client) {
      if (flags.json) return this.printJson({ running: false, listening: false, url: null })
      return this.log(
        `No manager runs on ${this.dataDir}, so nothing serves the web UI. Start it with: ${this.config.bin} start (or start --detached)`,
      )
    }
    try {
      const web = (await client.request('web:status', {}, this.actor)) as WebStatus
      if (flags.json) return this.printJson({ running: true, ...web })
      if (!web.listening) return this.log('The manager runs, but its web server is off (the setting web.enabled).')
      this.log(`web UI and API on ${web.url}`)
      this.log(`  API docs        ${web.url}/docs`)
      this.log(`  routes          ${web.routes}`)
      this.log(`  plugin routes   ${web.plugins.length ? web.plugins.join(', ') : 'none'}`)
      this.log(`  live clients    ${web.streamClients}`)
      this.log(`  since           ${web.since}`)
    } finally {
      client.close()
    }
  }
}
