import * as Args from '@oclif/core/args'
import { ManagerCommand } from '../../manager-command'

export default class TokenRevoke extends ManagerCommand {
  static override summary = 'Revoke an API token: it stops working at once'
  static override examples = ['<%= config.bin %> token revoke 3f9a1c2b7d4e']
  static override args = { id: Args.string({ description: 'the token id (token list)', required: true }) }

  async run(): Promise<void> {
    const { args } = await this.parse(TokenRevoke)
    const token = await this.request('auth:revoke_token', { id: args.id })
    this.log(`Revoked the API token '${token.name}' (${token.id}).`)
  }
}
