import { Args, Flags } from '@oclif/core'
import { SmError } from '../../../../kernel/errors'
import { ManagerCommand } from '../../manager-command'

export default class ServerAdd extends ManagerCommand {
  protected override loadsPlugins = false
  static override summary = 'Register an existing server directory under a name'
  static override description =
    'A directory holding bedrock_server is a bedrock server (started as ./bedrock_server with LD_LIBRARY_PATH=., world in worlds/<level-name>). Any other directory is a generic console server: give --command, and --arg, --env, --stop-command, --world-dir as it needs.'
  static override examples = [
    '<%= config.bin %> server add survival --dir /srv/bedrock/survival',
    '<%= config.bin %> server add lobby --dir /srv/lobby --command ./run.sh --arg --nogui --env JAVA_OPTS=-Xmx2G --world-dir world',
  ]
  static override args = {
    name: Args.string({ description: 'the server name: letters, digits, _ and -', required: true }),
  }
  static override flags = {
    dir: Flags.string({ description: 'the server directory (it must exist)', required: true }),
    command: Flags.string({ description: 'the executable (generic servers), relative to --dir or absolute' }),
    arg: Flags.string({ description: 'an argument for the executable (repeatable)', multiple: true }),
    env: Flags.string({ description: 'an environment variable, NAME=value (repeatable)', multiple: true }),
    'stop-command': Flags.string({ description: 'the console line that stops it (default: stop)' }),
    'world-dir': Flags.string({ description: 'the world directory, relative to --dir' }),
    json: Flags.boolean({ description: 'print the record as JSON' }),
  }

  async run(): Promise<void> {
    const { args, flags } = await this.parse(ServerAdd)
    // Null-prototype: `--env __proto__=x` is a variable like any other, not lost to the prototype setter.
    const env: Record<string, string> = Object.create(null)
    for (const pair of flags.env ?? []) {
      const at = pair.indexOf('=')
      if (at <= 0)
        throw new SmError('SM_ERR_CLI_INVALID_ARGUMENT', { name: `--env ${pair}`, reason: 'it must be NAME=value' })
      env[pair.slice(0, at)] = pair.slice(at + 1)
    }
    const server = await this.request('servers:add', {
      name: args.name,
      dir: flags.dir,
      command: flags.command,
      args: flags.arg,
      env,
      stopCommand: flags['stop-command'],
      worldDir: flags['world-dir'],
    })
    if (flags.json) return this.printJson(server)
    this.log(`Server '${server.name}' added: ${server.profile} server in ${server.dir}.`)
  }
}
