import { Flags } from '@oclif/core'
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
    const width = Math.max(4, ...tokens.map((t) => t.name.length))
    this.log(`${'ID'.padEnd(12)}  ${'NAME'.padEnd(width)}  ${'ROLE'.padEnd(9)}  ${'USER'.padEnd(12)}  EXPIRES`)
    for (const t of tokens)
      this.log(
        `${t.id.padEnd(12)}  ${t.name.padEnd(width)}  ${t.role.padEnd(9)}  ${t.owner.padEnd(12)}  ${t.expiresAt ?? 'never'}`,
      )
  }
}
