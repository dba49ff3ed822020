import { Errors } from '@oclif/core'
import { SmError } from '../../kernel/errors'
import './errors'

/**
 * An oclif parse failure as a coded error (exit 64), with its message on one line; undefined for
 * anything that is not one.
 */
export function cliError(error: unknown): SmError | undefined {
  if (!(error instanceof Errors.CLIError) || error instanceof Errors.ExitError) return undefined
  const reason = oneLine(error.message)
  switch (error.constructor.name) {
    case 'RequiredArgsError':
      return new SmError('SM_ERR_CLI_MISSING_ARGUMENT', { reason }, { cause: error })
    case 'UnexpectedArgsError':
      return new SmError('SM_ERR_CLI_UNEXPECTED_ARGUMENT', { reason }, { cause: error })
    case 'NonExistentFlagsError':
      return new SmError('SM_ERR_CLI_UNKNOWN_FLAG', { reason }, { cause: error })
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
