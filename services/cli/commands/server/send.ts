import { Args, Flags } from '@oclif/core'
import { ManagerCommand } from '../../manager-command'

export default class ServerSend extends ManagerCommand {
  static override summary = "Send a command to a server's console and print its reply"
  static override description =
    'Everything after the server name is the command. The reply is the lines the server printed in answer: for bedrock the known replies (list, save ...) are read to their end; for other commands, what arrives until the console is quiet. Lines are printed as plain text: colours, other escape sequences and a leading console prompt (`> `) are taken out.'
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
    const reply = await this.request('servers:send', { name: args.name, command })
    if (flags.json) return this.printJson(reply)
    for (const line of reply.reply) this.log(line)
  }
}
