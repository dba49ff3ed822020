import * as Args from '@oclif/core/args'
import { ROLES } from '../../../auth/contract'
import { ManagerCommand } from '../../manager-command'

export default class UserSetRole extends ManagerCommand {
  static override summary = "Change a web user's role (the last admin cannot be demoted)"
  static override examples = ['<%= config.bin %> user set-role alice admin']
  static override args = {
    username: Args.string({ description: 'the user', required: true }),
    role: Args.string({ description: 'the new role', required: true, options: [...ROLES] }),
  }

  async run(): Promise<void> {
    const { args } = await this.parse(UserSetRole)
    const user = await this.request('auth:set_role', {
      username: args.username,
      role: args.role as (typeof ROLES)[number],
    })
    this.log(`'${user.username}' is now ${user.role}.`)
  }
}
