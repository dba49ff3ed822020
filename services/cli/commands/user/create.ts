import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { SmError } from '../../../../kernel/errors'
import { ROLES } from '../../../auth/contract'
import { ManagerCommand } from '../../manager-command'
import { readNewPassword } from '../../password'

export default class UserCreate extends ManagerCommand {
  static override summary = 'Create a web user (asks for the password, or reads it with --password-stdin)'
  static override description =
    'Users sign in to the web UI and API. Roles, lowest first: user (sees servers and tasks), moderator (starts, stops, commands and backs up servers), admin (everything: plugins, settings, users). Passwords are hashed with scrypt; the first user can also be created on the web setup page.'
  static override examples = [
    '<%= config.bin %> user create alice --role moderator',
    'printf \'%s\\n\' "$PASSWORD" | <%= config.bin %> user create ci-admin --role admin --password-stdin',
  ]
  static override args = {
    username: Args.string({ description: 'the user name (letters, digits, . _ -)', required: true }),
  }
  static override flags = {
    role: Flags.string({
      description: 'the role (default: admin for the first user of the data directory, user after it)',
      options: [...ROLES],
    }),
    'password-stdin': Flags.boolean({ description: 'read the password from the first line of standard input' }),
    json: Flags.boolean({ description: 'print the new user as JSON' }),
  }

  async run(): Promise<void> {
    const { args, flags } = await this.parse(UserCreate)
    // The first account must be an admin: without one, nobody can manage users, settings or
    // plugins from the web. Checked before anyone types a password.
    const first = (await this.request('auth:list_users', {})).length === 0
    if (first && flags.role !== undefined && flags.role !== 'admin')
      throw new SmError('SM_ERR_AUTH_FIRST_ADMIN', { username: args.username, role: flags.role })
    const password = await readNewPassword(flags['password-stdin'])
    const user = await this.request('auth:create_user', {
      username: args.username,
      password,
      role: (flags.role ?? (first ? 'admin' : 'user')) as (typeof ROLES)[number],
    })
    if (flags.json) return this.printJson(user)
    this.log(`Created the ${user.role} '${user.username}'${first ? ', the first user (an admin)' : ''}.`)
  }
}
