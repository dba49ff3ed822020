import { createInterface } from 'node:readline/promises'
import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { SmError } from '../../../../kernel/errors'
import { ManagerCommand } from '../../manager-command'

export default class ServerRemove extends ManagerCommand {
  static override summary = 'Forget a server (its files stay, unless --delete-files)'
  static override description =
    "--delete-files also deletes the server's directory (the delete_server_data action, which plugins may veto). It asks first on a terminal; elsewhere it needs --yes."
  static override examples = [
    '<%= config.bin %> server remove old',
    '<%= config.bin %> server remove old --delete-files --yes',
  ]
  static override args = { name: Args.string({ description: 'the server name', required: true }) }
  static override flags = {
    'delete-files': Flags.boolean({ description: "also delete the server's directory" }),
    yes: Flags.boolean({ char: 'y', description: 'do not ask before deleting files' }),
    forget: Flags.boolean({
      description:
        'a server on another host that is gone for good: remove it from this manager only, without asking that host (on it, the server and its files stay)',
      exclusive: ['delete-files'],
    }),
  }

  async run(): Promise<void> {
    const { args, flags } = await this.parse(ServerRemove)
    if (flags['delete-files'] && !flags.yes) {
      const server = await this.request('servers:info', { name: args.name })
      if (
        !(await this.#confirm(
          `Delete ${server.dir} and everything in it? Type the server name to confirm: `,
          args.name,
        ))
      )
        throw new SmError('SM_ERR_SERVER_DELETE_REFUSED', {
          server: args.name,
          dir: server.dir,
          reason: process.stdin.isTTY ? 'not confirmed' : 'there is no terminal to confirm on; add --yes',
        })
    }
    const result = await this.request('servers:remove', {
      name: args.name,
      deleteFiles: flags['delete-files'],
      ...(flags.forget ? { forget: true } : {}),
    })
    this.log(String(result.message))
  }

  async #confirm(question: string, expected: string): Promise<boolean> {
    if (!process.stdin.isTTY) return false
    const prompt = createInterface({ input: process.stdin, output: process.stderr })
    try {
      return (await prompt.question(question)).trim() === expected
    } finally {
      prompt.close()
    }
  }
}
