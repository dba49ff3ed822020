import { defineErrors, type ErrorMapOf, spec } from '../../kernel/error-catalogue'
// The CLI raises some of these services' codes itself (a bad plugin name, a missing setting), before any manager runs.
import '../plugins/errors'
import '../servers/errors'
import '../settings/errors'

/** The cli service's error codes (docs/errors.md). */
export const cliErrors = defineErrors('cli', {
  SM_ERR_CLI_UNKNOWN_COMMAND: spec<{ command: string; hint: string }>({
    status: 404,
    exit: 64,
    when: 'The command line names no command server-manager has.',
    message: (p) => `'${p.command}' is not a server-manager command.${p.hint} Run 'server-manager help' for the list.`,
  }),
  SM_ERR_CLI_MISSING_ARGUMENT: spec<{ reason: string }>({
    status: 400,
    exit: 64,
    when: 'A required argument was not given.',
    message: (p) => `${p.reason}. Run the command with --help for its usage.`,
  }),
  SM_ERR_CLI_UNEXPECTED_ARGUMENT: spec<{ reason: string }>({
    status: 400,
    exit: 64,
    when: 'More arguments were given than the command takes.',
    message: (p) => `${p.reason}. Quote a value that contains spaces; run the command with --help for its usage.`,
  }),
  SM_ERR_CLI_UNKNOWN_FLAG: spec<{ reason: string }>({
    status: 400,
    exit: 64,
    when: 'A flag the command does not have.',
    message: (p) => `${p.reason}. Run the command with --help for its flags.`,
  }),
  SM_ERR_CLI_INVALID_ARGUMENT: spec<{ name: string; reason: string }>({
    status: 400,
    exit: 64,
    when: 'A command-line argument or flag has an invalid value.',
    message: (p) => `Invalid ${p.name}: ${p.reason}. Run the command with --help for its usage.`,
  }),
})

declare module '../../kernel/error-catalogue' {
  interface ErrorMap extends ErrorMapOf<typeof cliErrors> {}
}
