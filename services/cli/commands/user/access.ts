import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { table } from '../../format'
import { ManagerCommand } from '../../manager-command'
import { rightsText } from './grant'

export default class UserAccess extends ManagerCommand {
  static override summary = "Show a web user's reach: their role's on every server, or the servers they were granted"
  static override examples = ['<%= config.bin %> user access alice', '<%= config.bin %> user access alice --json']
  static override args = { username: Args.string({ description: 'the user', required: true }) }
  static override flags = { json: Flags.boolean({ description: 'print the reach as JSON' }) }
  protected override loadsPlugins = false

  async run(): Promise<void> {
    const { args, flags } = await this.parse(UserAccess)
    const access = await this.request('auth:user_access', { username: args.username })
    if (flags.json) return this.printJson(access)
    if (!access.scoped)
      return this.log(
        access.role === 'admin'
          ? `'${access.username}' is an admin: every right on every server.`
          : `'${access.username}' has the ${access.role} role's reach on every server (grant rights on some to hold them to those: ${this.config.bin} user grant).`,
      )
    const servers = Object.entries(access.servers)
    this.log(
      `'${access.username}' (${access.role}) is held to the servers granted to them${servers.length === 0 ? ': none now' : ':'}`,
    )
    for (const line of table(
      ['SERVER', 'RIGHTS'],
      servers.map(([server, rights]) => [server, rightsText(rights)]),
    ))
      this.log(line)
  }
}
