import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { SmError } from '../../../../kernel/errors'
import { ManagerCommand } from '../../manager-command'

export default class ServerProperties extends ManagerCommand {
  static override summary = "Read or change a server's server.properties"
  static override description =
    'With no key, prints every property; with a key, its value; with a key and a value, changes it (the properties_change action: checked against the known Bedrock keys, vetoable by plugins, comments and order kept).'
  static override examples = [
    '<%= config.bin %> server properties survival',
    '<%= config.bin %> server properties survival max-players',
    '<%= config.bin %> server properties survival max-players 20',
  ]
  static override args = {
    name: Args.string({ description: 'the server name', required: true }),
    key: Args.string({ description: 'a property, e.g. max-players' }),
    value: Args.string({ description: 'its new value' }),
  }
  static override flags = { json: Flags.boolean({ description: 'print JSON' }) }

  async run(): Promise<void> {
    const { args, flags } = await this.parse(ServerProperties)
    if (args.key !== undefined && args.value !== undefined) {
      const { changed } = await this.request('servers:set_properties', {
        name: args.name,
        properties: { [args.key]: args.value },
      })
      if (flags.json) return this.printJson(changed)
      const change = Object.hasOwn(changed, args.key) ? changed[args.key] : undefined
      if (!change) return this.log(`${args.key} = ${args.value} (unchanged)`)
      this.log(`${args.key} = ${change.to}${change.from === undefined ? ' (added)' : ` (was ${change.from})`}`)
      return
    }
    const properties = await this.request('servers:properties', { name: args.name })
    if (args.key !== undefined) {
      // Only the file's own keys: `constructor` is no more a property than any key the file lacks.
      const value = Object.hasOwn(properties, args.key) ? properties[args.key] : undefined
      if (value === undefined)
        throw new SmError('SM_ERR_SERVER_PROPERTY_INVALID', {
          server: args.name,
          key: args.key,
          reason: 'server.properties has no such key',
        })
      return this.log(flags.json ? JSON.stringify(value) : value)
    }
    if (flags.json) return this.printJson(properties)
    for (const [key, value] of Object.entries(properties)) this.log(`${key}=${value}`)
  }
}
