import * as Flags from '@oclif/core/flags'
import { table } from '../../format'
import { ManagerCommand } from '../../manager-command'

export default class TokenList extends ManagerCommand {
  static override summary = 'List API tokens (never their secrets)'
  static override examples = ['<%= config.bin %> token list', '<%= config.bin %> token list --json']
  static override flags = { json: Flags.boolean({ description: 'print the tokens as JSON' }) }
  protected override loadsPlugins = false

  async run(): Promise<void> {
    const { flags } = await this.parse(TokenList)
    const tokens = await this.request('auth:list_tokens', {})
    if (flags.json) return this.printJson(tokens)
    if (tokens.length === 0)
      return this.log(`No API tokens. Create one: ${this.config.bin} token create <name> --role user`)
    const rows = tokens.map((t) => [t.id, t.name, t.role, t.owner, t.expiresAt ?? 'never'])
    for (const line of table(['ID', 'NAME', 'ROLE', 'USER', 'EXPIRES'], rows)) this.log(line)
  }
}
