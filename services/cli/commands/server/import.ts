import { resolve } from 'node:path'
import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { ManagerCommand } from '../../manager-command'

export default class ServerImport extends ManagerCommand {
  static override summary = 'Make a world archive the server’s world (the current one is backed up first)'
  static override description =
    'A .mcworld for bedrock, a zip of a world folder otherwise. It must hold a world of the server’s game at its top (bedrock: level.dat or db/; java: level.dat; generic: anything). A running server is imported into only with --stop.'
  static override examples = ['<%= config.bin %> server import survival ~/downloads/castle.mcworld --stop']
  static override args = {
    name: Args.string({ description: 'the server name', required: true }),
    file: Args.string({ description: 'the world archive (.mcworld, .zip) to import', required: true }),
  }
  static override flags = {
    stop: Flags.boolean({ description: 'stop the running server for the import, then start it again' }),
  }

  async run(): Promise<void> {
    const { args, flags } = await this.parse(ServerImport)
    const reply = await this.withBackupProgress(args.name, () =>
      this.request('servers:import', {
        name: args.name,
        file: resolve(args.file),
        stopStart: flags.stop,
      }),
    )
    this.log(
      `Imported ${reply.imported} as the world of '${args.name}'${reply.safety ? `; the previous world is in ${reply.safety}` : ''}.`,
    )
  }
}
