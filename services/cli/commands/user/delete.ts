import * as Args from '@oclif/core/args'
import { ManagerCommand } from '../../manager-command'

export default class UserDelete extends ManagerCommand {
  static override summary = 'Delete a web user and their API tokens (the last admin stays)'
  static override examples = ['<%= config.bin %> user delete alice']
  static override args = { username: Args.string({ description: 'the user', required: true }) }

  async run(): Promise<void> {
    const { args } = await this.parse(UserDelete)
    const user = await this.request('auth:delete_user', { username: args.username })
    this.log(`Deleted the ${user.role} '${user.username}' and their API tokens.`)
  }
}
