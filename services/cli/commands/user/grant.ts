import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { SERVER_RIGHTS, type ServerRight } from '../../../../kernel/command-doors'
import { ManagerCommand } from '../../manager-command'

/** The `--rights` flag of `user grant` and `user revoke`: names from SERVER_RIGHTS, comma-separated or repeated. */
export const rightsFlag = (description: string, required: boolean) =>
  Flags.string({ char: 'r', description, multiple: true, delimiter: ',', options: [...SERVER_RIGHTS], required })

/** How a reach reads: the rights, or `none`. */
export const rightsText = (rights: readonly string[]) => (rights.length > 0 ? rights.join(', ') : 'none')

export default class UserGrant extends ManagerCommand {
  static override summary =
    'Grant a web user rights on one server: from the first grant on, they see only the servers they were granted'
  static override description =
    `Rights: ${SERVER_RIGHTS.join(', ')} (any right includes view). They add to what the user has on that server. files (writing the server's files, updating its release) changes the program it runs, as the manager's own OS user: grant it only to someone you would trust with this machine. An admin has every right everywhere and cannot be granted; a moderator or user who is granted is held to their grants until 'user clear-access'.`
  static override examples = [
    '<%= config.bin %> user grant alice survival --rights console,power',
    '<%= config.bin %> user grant bob creative -r view',
  ]
  static override args = {
    username: Args.string({ description: 'the user', required: true }),
    server: Args.string({ description: 'the server', required: true }),
  }
  static override flags = { rights: rightsFlag('the rights to add', true) }
  protected override loadsPlugins = false

  async run(): Promise<void> {
    const { args, flags } = await this.parse(UserGrant)
    // Asked first only to say when this grant is the one that holds the account.
    const before = await this.request('auth:user_access', { username: args.username })
    const set = await this.request('auth:set_server_access', {
      username: before.username,
      server: args.server,
      rights: flags.rights as ServerRight[],
      mode: 'add',
    })
    this.log(`'${set.username}' may now on '${set.server}': ${rightsText(set.rights)}.`)
    if (!before.scoped)
      this.log(
        `From now on '${set.username}' sees only the servers granted to them (undo: ${this.config.bin} user clear-access ${set.username}).`,
      )
  }
}
