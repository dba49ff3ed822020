import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { SmError } from '../../kernel/errors'
import type { AccessListName } from '../servers/contract'
import { table } from './format'
import { ManagerCommand } from './manager-command'

/**
 * `server allowlist` and `server ops`: a server's list of players (its game's allowlist or
 * operators file), or a player added or removed (the allowlist_change or operator_change action,
 * under the plugins' hooks).
 */
export abstract class AccessListCommand extends ManagerCommand {
  // Inherited by both commands: the manifest (oclif's cacheCommand) merges statics up the class chain.
  static override args = {
    name: Args.string({ description: 'the server name', required: true }),
    action: Args.string({ description: 'add or remove a player (none: list them)', options: ['add', 'remove'] }),
    player: Args.string({ description: "the player's name (a Bedrock gamertag may hold spaces: quote it)" }),
  }
  static override flags = {
    json: Flags.boolean({ description: 'print the list (or the change) as JSON' }),
  }
  /** Which list this command shows and changes, and what it calls it. */
  protected abstract readonly list: AccessListName
  protected abstract readonly noun: string

  async run(): Promise<void> {
    // parse() spreads the options, which drops inherited statics: name them.
    const { args, flags } = await this.parse({ args: AccessListCommand.args, flags: AccessListCommand.flags })
    const change = args.action as 'add' | 'remove' | undefined
    // Listing runs no hook; a change does (a plugin may veto it).
    this.loadsPlugins = change !== undefined
    if (!change) return this.#show(args.name, flags.json)
    if (!args.player)
      throw new SmError('SM_ERR_CLI_MISSING_ARGUMENT', { reason: `'${change}' needs the player's name` })
    const done = await this.request('servers:access_change', {
      name: args.name,
      list: this.list,
      change,
      player: args.player,
    })
    if (flags.json) return this.printJson(done)
    this.log(done.message)
  }

  async #show(name: string, json: boolean): Promise<void> {
    const players = await this.request('servers:access_list', { name, list: this.list })
    if (json) return this.printJson(players)
    if (players.length === 0) return this.log(`No ${this.noun} on '${name}'.`)
    const rows = players.map((p) => [p.name ?? '(not seen here)', p.id ?? '-'])
    for (const line of table(['NAME', 'ID'], rows)) this.log(line)
  }
}
