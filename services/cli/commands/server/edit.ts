import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { SmError } from '../../../../kernel/errors'
import { ManagerCommand } from '../../manager-command'

/** The flags --clear takes, and the record field each clears. */
const CLEARABLE = {
  'world-dir': 'worldDir',
  'ready-line': 'readyLine',
  'error-line': 'errorLines',
  'chat-line': 'chatLine',
  'say-command': 'sayCommand',
  config: 'configFiles',
  'hot-backup': 'hotBackup',
  'hot-backup-done': 'hotBackupDone',
} as const

export default class ServerEdit extends ManagerCommand {
  protected override loadsPlugins = false
  static override summary = "Change a server's command, environment or profile fields after it was added"
  static override description =
    "Each flag given replaces what the server has (checked as server add checks it: regular expressions must compile, folders must be inside the server directory); --arg, --env, --error-line and --config replace the whole list. --clear <flag> takes a field off, so its profile's applies again. Recorded as a servers:edited fact. A running game takes the change at its next start (server restart), its hot backups and command replies included; a stopped one at once."
  static override examples = [
    "<%= config.bin %> server edit lobby --hot-backup-done '^World flushed'",
    "<%= config.bin %> server edit lobby --ready-line '^Ready' --chat-line '^\\[Chat\\] '",
    '<%= config.bin %> server edit lobby --clear say-command',
  ]
  static override args = {
    name: Args.string({ description: 'the server name', required: true }),
  }
  static override flags = {
    command: Flags.string({ description: 'the executable, relative to its directory or absolute' }),
    arg: Flags.string({ description: 'an argument for the executable (repeatable: the whole list)', multiple: true }),
    env: Flags.string({
      description: 'an environment variable, NAME=value (repeatable: the whole set)',
      multiple: true,
    }),
    'stop-command': Flags.string({ description: 'the console line that stops it' }),
    'world-dir': Flags.string({ description: 'the world directory, relative to its directory' }),
    'ready-line': Flags.string({ description: 'the console message that says it is ready, a regular expression' }),
    'error-line': Flags.string({
      description: 'a reply message that means a command was refused, a regular expression (repeatable)',
      multiple: true,
    }),
    'chat-line': Flags.string({ description: "a player's chat message, a regular expression: never a reply" }),
    'say-command': Flags.string({ description: 'how to tell players something, with {message}' }),
    config: Flags.string({ description: 'a config file, relative to its directory (repeatable)', multiple: true }),
    'hot-backup': Flags.string({ description: "the hot-backup commands: 'off;flush;on'" }),
    'hot-backup-done': Flags.string({
      description: 'the console message that says the flush is done, a regular expression',
    }),
    clear: Flags.string({
      description: "a field to take off, so its profile's applies again (repeatable)",
      options: Object.keys(CLEARABLE),
      multiple: true,
    }),
    json: Flags.boolean({ description: 'print the record as JSON' }),
  }

  async run(): Promise<void> {
    const { args, flags } = await this.parse(ServerEdit)
    let env: Record<string, string> | undefined
    if (flags.env) {
      // Null-prototype: `--env __proto__=x` is a variable like any other.
      env = Object.create(null) as Record<string, string>
      for (const pair of flags.env) {
        const at = pair.indexOf('=')
        if (at <= 0)
          throw new SmError('SM_ERR_CLI_INVALID_ARGUMENT', { name: `--env ${pair}`, reason: 'it must be NAME=value' })
        env[pair.slice(0, at)] = pair.slice(at + 1)
      }
    }
    const cleared = Object.fromEntries(
      (flags.clear ?? []).map((flag) => [CLEARABLE[flag as keyof typeof CLEARABLE], null]),
    )
    const reply = await this.request('servers:edit', {
      name: args.name,
      command: flags.command,
      args: flags.arg,
      env,
      stopCommand: flags['stop-command'],
      worldDir: flags['world-dir'],
      readyLine: flags['ready-line'],
      errorLines: flags['error-line'],
      chatLine: flags['chat-line'],
      sayCommand: flags['say-command'],
      configFiles: flags.config,
      hotBackup: flags['hot-backup'],
      hotBackupDone: flags['hot-backup-done'],
      ...cleared,
    })
    if (flags.json) return this.printJson(reply)
    this.log(`Server '${args.name}' changed: ${reply.changed.join(', ')}.`)
  }
}
