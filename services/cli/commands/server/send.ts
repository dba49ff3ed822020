import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { isSmError, type SmError } from '../../../../kernel/errors'
import { ManagerCommand } from '../../manager-command'

export default class ServerSend extends ManagerCommand {
  static override summary = "Send a command to a server's console and print its reply"
  static override description =
    "Everything after the server name is the command. The reply is the lines the server printed in answer: the replies its profile knows (list, save ...) are read to their end; for other commands, what arrives until the console is quiet. A player's chat (java's '<name> text' and '[Not Secure] <name> text', or the server's --chat-line) is never part of a reply. Lines are printed as plain text: colours, other escape sequences and a leading console prompt (`> `) are taken out. When a reply line is one of the profile's error lines (Bedrock's 'Unknown command: ...', Java's 'Unknown or incomplete command'), the game refused the command (unless the reply its profile knows came, as 'There are ...' for list): the reply is printed and the command exits 65 (SM_ERR_SERVER_COMMAND_REFUSED); it is not sent again."
  static override strict = false
  static override examples = [
    '<%= config.bin %> server send survival list',
    '<%= config.bin %> server send survival say Restart in 5 minutes',
  ]
  static override args = {
    name: Args.string({ description: 'the server name', required: true }),
    command: Args.string({ description: 'the console command (the rest of the line)', required: true }),
  }
  static override flags = { json: Flags.boolean({ description: 'print the reply as JSON' }) }

  async run(): Promise<void> {
    const { args, argv, flags } = await this.parse(ServerSend)
    const command = (argv as string[]).slice(1).join(' ')
    const print = (reply: { sent: true; reply: readonly string[] }) => {
      if (flags.json) return this.printJson(reply)
      for (const line of reply.reply) this.log(line)
    }
    try {
      print(await this.request('servers:send', { name: args.name, command }))
    } catch (error) {
      // A refusal is still the game's answer: its reply on stdout, the coded error on stderr.
      if (isSmError(error) && error.code === 'SM_ERR_SERVER_COMMAND_REFUSED')
        print({ sent: true, reply: (error as SmError<'SM_ERR_SERVER_COMMAND_REFUSED'>).params.reply })
      throw error
    }
  }
}
