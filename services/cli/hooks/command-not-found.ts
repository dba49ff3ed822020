import * as Errors from '@oclif/core/errors'
import type { Hook } from '@oclif/core/interfaces'
import { errorLine, SmError } from '../../../kernel/errors'
import { closest } from '../../../lib/closest'
import { pluginCommands } from '../plugin-commands'

/**
 * An unknown command: a coded error with the nearest real command (`setings get` → `setting
 * get`), exit 64, instead of oclif's bare "command not found".
 */
const hook: Hook.CommandNotFound = async (options) => {
  const typed = options.id.split(':')
  // One of a plugin's commands, while that plugin does not import: say so, not "unknown".
  const broken = pluginCommands().broken.find((entry) =>
    entry.knownIds?.some((id) => options.id === id || options.id.startsWith(`${id}:`)),
  )
  if (broken?.error) {
    const error = new SmError('SM_ERR_CLI_PLUGIN_COMMAND_FAILED', {
      plugin: broken.plugin,
      command: typed.join(' '),
      reason: broken.error.message,
    })
    process.stderr.write(`${errorLine(error)}\n`)
    throw new Errors.ExitError(error.exitCode)
  }
  const commands = options.config.commands.filter((c) => !c.hidden).map((c) => c.id.split(':'))
  const topics = options.config.topics.map((t) => t.name.split(':'))
  let hint = ''
  for (let parts = Math.min(typed.length, 3); parts >= 1 && !hint; parts--) {
    const words = typed.slice(0, parts).join(' ')
    const candidates = [...commands, ...topics].filter((c) => c.length === parts).map((c) => c.join(' '))
    const nearest = closest(words, candidates)
    if (nearest) hint = ` Did you mean '${nearest}'?`
  }
  const error = new SmError('SM_ERR_CLI_UNKNOWN_COMMAND', { command: typed.join(' '), hint })
  process.stderr.write(`${errorLine(error)}\n`)
  throw new Errors.ExitError(error.exitCode)
}

export default hook
