import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { SmError } from '../../../../kernel/errors'
import { ManagerCommand } from '../../manager-command'
import { readNewPassword } from '../../password'

export default class UserResetPassword extends ManagerCommand {
  static override summary = "Set a web user's password; their signed-in sessions end"
  static override examples = [
    '<%= config.bin %> user reset-password alice',
    'printf \'%s\\n\' "$PASSWORD" | <%= config.bin %> user reset-password alice --password-stdin',
  ]
  static override args = { username: Args.string({ description: 'the user', required: true }) }
  static override flags = {
    'password-stdin': Flags.boolean({ description: 'read the password from the first line of standard input' }),
  }

  async run(): Promise<void> {
    const { args, flags } = await this.parse(UserResetPassword)
    // The user must exist before anyone types a password.
    const users = await this.request('auth:list_users', {})
    if (!users.some((u) => u.username.toLowerCase() === args.username.toLowerCase()))
      throw new SmError('SM_ERR_AUTH_USER_NOT_FOUND', { username: args.username })
    const password = await readNewPassword(flags['password-stdin'])
    const user = await this.request('auth:reset_password', { username: args.username, password })
    this.log(`The password of '${user.username}' changed; their sessions ended.`)
  }
}
