import * as Errors from '@oclif/core/errors'
import { SmError } from '../../kernel/errors'
import { closest } from '../../lib/closest'

/**
 * An oclif parse failure as a coded error (exit 64), with its message on one line; undefined for
 * anything that is not one. `flags` (the command's flag names) give an unknown flag's likely meaning.
 */
export function cliError(error: unknown, flags: Iterable<string> = []): SmError | undefined {
  if (!(error instanceof Errors.CLIError) || error instanceof Errors.ExitError) return undefined
  const reason = oneLine(error.message)
  switch (error.constructor.name) {
    case 'RequiredArgsError':
      return new SmError('SM_ERR_CLI_MISSING_ARGUMENT', { reason }, { cause: error })
    case 'UnexpectedArgsError':
      return new SmError('SM_ERR_CLI_UNEXPECTED_ARGUMENT', { reason }, { cause: error })
    case 'NonExistentFlagsError': {
      const known = [...flags].map((name) => `--${name}`)
      const hint = ((error as { flags?: string[] }).flags ?? [])
        .map((flag) => [flag, closest(flag.split('=')[0] ?? flag, known)])
        .filter(([, nearest]) => nearest !== undefined)
        .map(([flag, nearest]) => ` Did you mean '${nearest}' for '${flag}'?`)
        .join('')
      return new SmError('SM_ERR_CLI_UNKNOWN_FLAG', { reason, hint }, { cause: error })
    }
    default:
      return new SmError('SM_ERR_CLI_INVALID_ARGUMENT', { name: 'arguments', reason }, { cause: error })
  }
}

function oneLine(message: string): string {
  return message
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('See more help with'))
    .join(' ')
    .replace(/:$/, '')
}
