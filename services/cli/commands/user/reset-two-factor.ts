import * as Args from '@oclif/core/args'
import { ManagerCommand } from '../../manager-command'

export default class UserResetTwoFactor extends ManagerCommand {
  static override summary =
    "Turn a web user's two-factor sign-in off (a lost phone and recovery codes): they sign in with their password, and may enrol again"
  static override examples = ['<%= config.bin %> user reset-two-factor alice']
  static override args = { username: Args.string({ description: 'the user', required: true }) }

  async run(): Promise<void> {
    const { args } = await this.parse(UserResetTwoFactor)
    const user = await this.request('auth:two_factor_reset', { username: args.username })
    this.log(
      `Two-factor sign-in is off for '${user.username}': they sign in with their password, and may turn it on again.`,
    )
  }
}
