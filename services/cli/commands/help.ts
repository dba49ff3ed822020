import * as Args from '@oclif/core/args'
import { Command } from '@oclif/core/command'
import * as Errors from '@oclif/core/errors'
import { loadHelpClass } from '@oclif/core/help'
import { errorLine, SmError } from '../../../kernel/errors'

export default class Help extends Command {
  static override summary = 'Show help for server-manager, a topic or a command'
  static override examples = [
    '<%= config.bin %> help',
    '<%= config.bin %> help setting',
    '<%= config.bin %> help setting set',
  ]
  static override strict = false
  static override args = { command: Args.string({ description: 'a topic or command, e.g. setting set' }) }

  async run(): Promise<void> {
    const { argv } = await this.parse(Help)
    const words = argv as string[]
    const id = words.join(':')
    if (id && !this.config.findCommand(id) && !this.config.findTopic(id)) {
      const error = new SmError('SM_ERR_CLI_UNKNOWN_COMMAND', {
        command: words.join(' '),
        hint: '',
      })
      this.logToStderr(errorLine(error))
      throw new Errors.ExitError(error.exitCode)
    }
    const HelpClass = await loadHelpClass(this.config)
    await new HelpClass(this.config, { all: false }).showHelp(words)
  }
}
