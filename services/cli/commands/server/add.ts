import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { SmError } from '../../../../kernel/errors'
import { ManagerCommand } from '../../manager-command'

export default class ServerAdd extends ManagerCommand {
  protected override loadsPlugins = false
  static override summary = 'Register an existing server directory under a name'
  static override description =
    "The profile says what server-manager knows of the game (docs/architecture.md, Game profiles). A directory holding bedrock_server is a bedrock server (started as ./bedrock_server with LD_LIBRARY_PATH=., world in worlds/<level-name>, hot backups with save hold). One holding server.jar (or a single .jar) is a java server (Minecraft Java Edition and its forks: started as java -jar <jar> nogui, ready at its 'Done (...)!' line, world in <level-name>, hot backups with save-off, save-all flush, save-on). Any other directory is a generic console server: give --command, and --arg, --env, --stop-command, --world-dir, --ready-line, --say-command, --config, --hot-backup with --hot-backup-done, --error-line and --chat-line as it needs; without --ready-line it counts as running once its process exists, without --hot-backup and its done line it is stopped for a backup. A player's chat (java's '<name> text', '[Not Secure] <name> text', or --chat-line) is never taken as a command's reply."
  static override examples = [
    '<%= config.bin %> server add survival --dir /srv/bedrock/survival',
    '<%= config.bin %> server add paper --dir /srv/paper',
    "<%= config.bin %> server add lobby --dir /srv/lobby --command ./run.sh --arg --nogui --world-dir world --ready-line '^Ready' --hot-backup 'save-off;save-all flush;save-on' --hot-backup-done '^Saved the game' --config config/settings.json",
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
    profile: Flags.string({
      description: 'bedrock, java or generic (default: detected from the directory)',
      options: ['bedrock', 'java', 'generic'],
    }),
    'ready-line': Flags.string({
      description: 'the console message that says it is ready, a regular expression (it is starting until then)',
    }),
    'say-command': Flags.string({
      description: "how to tell players something, with {message} (e.g. 'say {message}')",
    }),
    config: Flags.string({
      description: 'a config file, relative to --dir (repeatable): config backups hold them',
      multiple: true,
    }),
    'hot-backup': Flags.string({
      description:
        "the console commands that back it up while it runs: 'off;flush;on' (e.g. 'save-off;save-all flush;save-on')",
    }),
    'hot-backup-done': Flags.string({
      description:
        "the console message that says the flush is done, a regular expression (e.g. '^Saved the game'): the world is copied only after it; without it a running server is stopped for a backup",
    }),
    'error-line': Flags.string({
      description: 'a reply message that means a command was refused, a regular expression (repeatable)',
      multiple: true,
    }),
    'chat-line': Flags.string({
      description:
        "a player's chat message, a regular expression (java's: '<name> text'): never taken as a command's reply",
    }),
    host: Flags.string({
      description:
        'the host agent to add it on (server-manager hosts): --dir is then a directory on that machine, best absolute',
      helpValue: '<host>',
    }),
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
      profile: flags.profile as 'bedrock' | 'java' | 'generic' | undefined,
      readyLine: flags['ready-line'],
      sayCommand: flags['say-command'],
      configFiles: flags.config,
      hotBackup: flags['hot-backup'],
      hotBackupDone: flags['hot-backup-done'],
      errorLines: flags['error-line'],
      chatLine: flags['chat-line'],
      ...(flags.host ? { host: flags.host } : {}),
    })
    if (flags.json) return this.printJson(server)
    this.log(
      `Server '${server.name}' added: ${server.profile} server in ${server.dir}${server.host ? ` on host '${server.host}'` : ''}.`,
    )
  }
}
