import { defineErrors, type ErrorMapOf, spec } from '../../kernel/error-catalogue'

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
  SM_ERR_CLI_UNKNOWN_FLAG: spec<{ reason: string; hint: string }>({
    status: 400,
    exit: 64,
    when: 'A flag the command does not have.',
    message: (p) => `${p.reason}.${p.hint} Run the command with --help for its flags.`,
  }),
  SM_ERR_CLI_INVALID_ARGUMENT: spec<{ name: string; reason: string }>({
    status: 400,
    exit: 64,
    when: 'A command-line argument or flag has an invalid value.',
    message: (p) => `Invalid ${p.name}: ${p.reason}. Run the command with --help for its usage.`,
  }),
  SM_ERR_CLI_PLUGIN_COMMAND_FAILED: spec<{ plugin: string; command: string; reason: string }>({
    status: 500,
    exit: 70,
    when: "A plugin's command could not be loaded: its plugin no longer imports, or no longer has the command.",
    message: (p) =>
      `The command '${p.command}' of the plugin '${p.plugin}' could not be loaded: ${p.reason.replace(/\.$/, '')}. Fix the plugin (server-manager plugin info ${p.plugin}); other commands are not affected.`,
  }),
  SM_ERR_CLI_PLUGIN_COMMAND_ERROR: spec<{ plugin: string; command: string; reason: string }>({
    status: 500,
    exit: 70,
    when: "A plugin's command (or menu item) threw an error of its own.",
    message: (p) =>
      `'${p.command}' (plugin '${p.plugin}') failed: ${p.reason}. This comes from the plugin's code; see its documentation, or report it to its author.`,
  }),
  SM_ERR_CLI_PLUGIN_COMMAND_TIMEOUT: spec<{ plugin: string; command: string; seconds: number }>({
    status: 504,
    exit: 75,
    when: "A plugin's command ran past its timeout (its class's `static timeout`, 600 s by default); one whose code holds the event loop is killed (SIGKILL) with this line on stderr.",
    message: (p) =>
      `'${p.command}' (plugin '${p.plugin}') did not finish within ${p.seconds} s and was ended. A command that needs longer declares it on its class (static timeout = <seconds>, 0 for none); otherwise report it to the plugin's author.`,
  }),
  SM_ERR_CLI_PLUGIN_BLOCKED: spec<{ plugin: string; item: string; seconds: number }>({
    status: 500,
    exit: 70,
    when: "A plugin's menu item held the CLI's event loop (a synchronous loop), so nothing else could run: the process is killed (SIGKILL) with this line on stderr.",
    message: (p) =>
      `The menu item '${p.item}' (plugin '${p.plugin}') held the event loop for ${p.seconds} s, so nothing else could run, not even Ctrl-C, and the menu was ended. Report it to the plugin's author.`,
  }),
  SM_ERR_CLI_NEEDS_LOCAL: spec<{ command: string; reason: string }>({
    status: 400,
    exit: 64,
    when: "A plugin command running as the manager's client asked for something only an in-process manager can do (runTask with a function).",
    message: (p) =>
      `'${p.command}' cannot go to the running manager: ${p.reason}. Do the work in the command itself, or mark the command 'static local = true' so it runs against an in-process manager.`,
  }),
  SM_ERR_CLI_NO_PLUGIN_API: spec<{ command: string }>({
    status: 500,
    exit: 70,
    when: '`this.api` of a plugin command was used although server-manager did not load the command from a plugin.',
    message: (p) =>
      `The command '${p.command}' has no plugin API: it was not loaded by server-manager from an enabled plugin. Return it from your plugin's getCliCommands().`,
  }),
})

declare module '../../kernel/error-catalogue' {
  interface ErrorMap extends ErrorMapOf<typeof cliErrors> {}
}
