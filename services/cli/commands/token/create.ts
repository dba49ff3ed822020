import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { ROLES } from '../../../auth/contract'
import { ManagerCommand } from '../../manager-command'

export default class TokenCreate extends ManagerCommand {
  static override summary = 'Create an API token for scripts, bots and home automation (shown once)'
  static override description =
    "The token acts for a user (--user, default the oldest admin) with at most that user's role, and stops working when revoked, when it expires, or when the user is deleted. Send it as 'Authorization: Bearer <token>'. Only its SHA-256 digest is kept: copy it now."
  static override examples = [
    '<%= config.bin %> token create home-assistant --role moderator',
    '<%= config.bin %> token create ci --role user --user alice --expires-days 90',
  ]
  static override args = { name: Args.string({ description: 'what the token is for', required: true }) }
  static override flags = {
    role: Flags.string({ description: 'its role', options: [...ROLES], required: true }),
    user: Flags.string({ description: 'the user it acts for (default: the oldest admin)' }),
    'expires-days': Flags.integer({ description: 'it stops working after this many days', min: 1, max: 3650 }),
    json: Flags.boolean({ description: 'print the token and its record as JSON' }),
  }
  protected override loadsPlugins = false

  async run(): Promise<void> {
    const { args, flags } = await this.parse(TokenCreate)
    const created = await this.request('auth:create_token', {
      name: args.name,
      role: flags.role as (typeof ROLES)[number],
      owner: flags.user,
      expiresDays: flags['expires-days'],
    })
    if (flags.json) return this.printJson(created)
    this.log(created.token)
    this.logToStderr(
      `API token '${created.record.name}' (${created.record.id}, ${created.record.role}, acting for ${created.record.owner}${created.record.expiresAt ? `, until ${created.record.expiresAt}` : ''}). Copy it now: it is not shown again.`,
    )
  }
}
