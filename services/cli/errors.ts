import { defineErrors, type ErrorMapOf, spec } from '../../kernel/error-catalogue'

/** The cli service's error codes (docs/errors.md). */
export const cliErrors = defineErrors('cli', {
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
