import * as Flags from '@oclif/core/flags'
import { table } from '../../format'
import { ManagerCommand } from '../../manager-command'

export default class UserList extends ManagerCommand {
  static override summary = 'List web users and their roles'
  static override examples = ['<%= config.bin %> user list', '<%= config.bin %> user list --json']
  static override flags = { json: Flags.boolean({ description: 'print the users as JSON' }) }
  protected override loadsPlugins = false
  protected override services = ['auth'] as const

  async run(): Promise<void> {
    const { flags } = await this.parse(UserList)
    const users = await this.request('auth:list_users', {})
    if (flags.json) return this.printJson(users)
    if (users.length === 0)
      return this.log(`No users yet. Create the first admin: ${this.config.bin} user create <name> --role admin`)
    // Servers: every one (the role's reach), or those the user is held to.
    const servers = (u: (typeof users)[number]) =>
      u.role === 'admin' || !u.servers ? 'all' : Object.keys(u.servers).join(', ') || 'none'
    const rows = users.map((u) => [u.username, u.role, servers(u), u.twoFactor ? 'on' : 'off', u.createdAt])
    for (const line of table(['USER', 'ROLE', 'SERVERS', 'TWO-FACTOR', 'SINCE'], rows)) this.log(line)
  }
}
