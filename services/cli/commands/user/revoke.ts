import * as Args from '@oclif/core/args'
import type { ServerRight } from '../../../../kernel/command-doors'
import { ManagerCommand } from '../../manager-command'
import { rightsFlag, rightsText } from './grant'

export default class UserRevoke extends ManagerCommand {
  static override summary =
    "Revoke a web user's rights on one server (all of them, or those given): they stay held to their other grants"
  static override examples = [
    '<%= config.bin %> user revoke alice survival',
    '<%= config.bin %> user revoke alice survival --rights power',
  ]
  static override args = {
    username: Args.string({ description: 'the user', required: true }),
    server: Args.string({ description: 'the server', required: true }),
  }
  static override flags = { rights: rightsFlag('only these rights (default: all; revoking view revokes all)', false) }
  protected override loadsPlugins = false

  async run(): Promise<void> {
    const { args, flags } = await this.parse(UserRevoke)
    const dropped = (flags.rights ?? []) as ServerRight[]
    // None named: all of them. The server takes them off what is held, in one step.
    const set = await this.request(
      'auth:set_server_access',
      dropped.length === 0
        ? { username: args.username, server: args.server, rights: [] }
        : { username: args.username, server: args.server, rights: dropped, mode: 'remove' },
    )
    this.log(`'${set.username}' may now on '${set.server}': ${rightsText(set.rights)}.`)
  }
}
