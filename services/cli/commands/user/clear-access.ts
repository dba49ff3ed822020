import * as Args from '@oclif/core/args'
import { ManagerCommand } from '../../manager-command'

export default class UserClearAccess extends ManagerCommand {
  static override summary = "Give a web user back their role's reach on every server (their server grants go)"
  static override examples = ['<%= config.bin %> user clear-access alice']
  static override args = { username: Args.string({ description: 'the user', required: true }) }
  protected override loadsPlugins = false

  async run(): Promise<void> {
    const { args } = await this.parse(UserClearAccess)
    const user = await this.request('auth:clear_server_access', { username: args.username })
    this.log(`'${user.username}' has the ${user.role} role's reach on every server again.`)
  }
}
