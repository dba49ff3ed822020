/**
 * The one catalogue of every error the product raises. Each entry gives the HTTP status, the
 * CLI exit code (sysexits-style), when it happens, and a message template that tells the
 * reader what to do. docs/errors.md is this table; test/kernel/error-catalogue.test.ts keeps
 * the two equal.
 */
export interface ErrorSpec<P> {
  /** HTTP status the web layer answers with. */
  readonly status: number
  /** Process exit code the CLI ends with. */
  readonly exit: number
  /** When the error happens, for docs/errors.md. */
  readonly when: string
  readonly message: (params: P) => string
}

const spec = <P = Record<string, never>>(s: ErrorSpec<P>): ErrorSpec<P> => s

export const errorCatalogue = {
  SM_ERR_INTERNAL: spec<{ reason: string }>({
    status: 500,
    exit: 70,
    when: 'An unexpected failure inside server-manager (a bug).',
    message: (p) =>
      `Unexpected internal error: ${p.reason}. This is a bug: please report it with the log file from <data dir>/logs.`,
  }),
  SM_ERR_KERNEL_NO_HANDLER: spec<{ command: string }>({
    status: 500,
    exit: 70,
    when: 'A command was requested that no started service handles.',
    message: (p) =>
      `No service handles the command '${p.command}'. Register and start the service that provides it before calling it.`,
  }),
  SM_ERR_KERNEL_DUPLICATE_HANDLER: spec<{ command: string; owner: string; existing: string }>({
    status: 500,
    exit: 70,
    when: 'Two services tried to handle the same command.',
    message: (p) =>
      `'${p.owner}' tried to handle the command '${p.command}', which '${p.existing}' already handles. A command has exactly one handler: rename one of them.`,
  }),
  SM_ERR_KERNEL_LISTENER_FAILED: spec<{ owner: string; event: string; reason: string }>({
    status: 500,
    exit: 70,
    when: 'A listener (a service or a plugin hook) threw or rejected while handling an event.',
    message: (p) =>
      `'${p.owner}' failed while handling '${p.event}': ${p.reason}. Other listeners and the action carried on; fix the listener.`,
  }),
  SM_ERR_KERNEL_LISTENER_TIMEOUT: spec<{ owner: string; event: string; ms: number }>({
    status: 504,
    exit: 75,
    when: 'A listener did not settle within its timeout.',
    message: (p) =>
      `'${p.owner}' did not finish handling '${p.event}' within ${p.ms} ms and was abandoned. Move long work into a task, or raise the timeout.`,
  }),
  SM_ERR_KERNEL_REQUEST_TIMEOUT: spec<{ command: string; ms: number }>({
    status: 504,
    exit: 75,
    when: 'A command handler did not reply within the time the caller allowed.',
    message: (p) =>
      `The command '${p.command}' did not reply within ${p.ms} ms. Try again; if it persists, check the log.`,
  }),
  SM_ERR_KERNEL_NOT_RUNNING: spec<{ state: string }>({
    status: 503,
    exit: 69,
    when: 'The kernel was used before start() or after stop().',
    message: (p) => `The kernel is ${p.state}. Call start() before using it, and do not use it after stop().`,
  }),
  SM_ERR_KERNEL_DUPLICATE_SERVICE: spec<{ service: string }>({
    status: 500,
    exit: 70,
    when: 'Two services with one name were registered.',
    message: (p) => `A service named '${p.service}' is already registered. Service names must be unique.`,
  }),
  SM_ERR_KERNEL_SERVICE_MISSING: spec<{ service: string; dependency: string }>({
    status: 500,
    exit: 70,
    when: 'A service depends on a service that is not registered.',
    message: (p) =>
      `The service '${p.service}' depends on '${p.dependency}', which is not registered. Register '${p.dependency}' too.`,
  }),
  SM_ERR_KERNEL_SERVICE_CYCLE: spec<{ cycle: string }>({
    status: 500,
    exit: 70,
    when: 'Service dependencies form a cycle.',
    message: (p) => `The services depend on each other in a cycle (${p.cycle}). Break the cycle.`,
  }),
  SM_ERR_KERNEL_SERVICE_FAILED: spec<{ service: string; phase: string; reason: string }>({
    status: 500,
    exit: 70,
    when: 'A service failed to start or stop, or took longer than its timeout.',
    message: (p) => `The service '${p.service}' failed to ${p.phase}: ${p.reason}. The log has the details.`,
  }),
  SM_ERR_KERNEL_NOT_REGISTERED: spec<{ token: string }>({
    status: 500,
    exit: 70,
    when: 'Something was resolved from the registry that nobody provided.',
    message: (p) => `Nothing is registered for '${p.token}'. Provide it before resolving it.`,
  }),
  SM_ERR_DATA_DIR_UNUSABLE: spec<{ path: string; reason: string }>({
    status: 500,
    exit: 73,
    when: 'The data directory cannot be created, read or written.',
    message: (p) =>
      `The data directory '${p.path}' cannot be used (${p.reason}). Point SM_DATA_DIR at a directory this user can read and write, or fix its permissions.`,
  }),
  SM_ERR_DB_CORRUPT: spec<{ path: string; reason: string }>({
    status: 500,
    exit: 65,
    when: 'The database file is not SQLite, is damaged, or belongs to something else.',
    message: (p) =>
      `The database '${p.path}' is damaged or is not a server-manager database (${p.reason}). It was left untouched: move it aside and restore a backup, or start with an empty data directory.`,
  }),
  SM_ERR_DB_READONLY: spec<{ path: string }>({
    status: 500,
    exit: 74,
    when: 'The database file or its directory cannot be written.',
    message: (p) =>
      `The database '${p.path}' is read-only. Make the file and its directory writable for this user; nothing was written.`,
  }),
  SM_ERR_DB_BUSY: spec<{ path: string; ms: number }>({
    status: 503,
    exit: 75,
    when: 'Another process held the database lock for longer than the retry budget.',
    message: (p) =>
      `The database '${p.path}' stayed locked by another process for ${p.ms} ms. Nothing was written: try again, and if it persists find the process that holds it.`,
  }),
  SM_ERR_DB_NEWER_SCHEMA: spec<{ path: string; found: number; supported: number }>({
    status: 500,
    exit: 65,
    when: 'The database was written by a newer server-manager.',
    message: (p) =>
      `The database '${p.path}' has schema version ${p.found}, newer than the ${p.supported} this version understands. Upgrade server-manager; the file was left untouched.`,
  }),
  SM_ERR_DB_IO: spec<{ path: string; reason: string }>({
    status: 500,
    exit: 74,
    when: 'Any other failure reading or writing the database.',
    message: (p) =>
      `Could not use the database '${p.path}': ${p.reason}. Nothing was written half-way; check the disk.`,
  }),
  SM_ERR_EVENTS_INVALID_EVENT: spec<{ reason: string }>({
    status: 422,
    exit: 65,
    when: 'An event to append has no type, no actor, or a payload that is not JSON.',
    message: (p) => `The event cannot be stored: ${p.reason}. Nothing was appended.`,
  }),
  SM_ERR_EVENTS_INVALID_QUERY: spec<{ reason: string }>({
    status: 422,
    exit: 64,
    when: 'A filter for reading the event log is malformed.',
    message: (p) => `The event query is invalid: ${p.reason}.`,
  }),
  SM_ERR_EVENTS_PROJECTION_FAILED: spec<{ projection: string; events: string; reason: string }>({
    status: 500,
    exit: 70,
    when: 'A projection could not apply an event; the whole append was rolled back.',
    message: (p) =>
      `The projection '${p.projection}' could not apply the events ${p.events}: ${p.reason}. The append was rolled back, so nothing was written.`,
  }),
  SM_ERR_EVENTS_UNKNOWN_PROJECTION: spec<{ projection: string }>({
    status: 500,
    exit: 70,
    when: 'A projection was read that no service registered.',
    message: (p) => `No projection named '${p.projection}' is registered. Start the service that owns it first.`,
  }),
  SM_ERR_SETTINGS_INVALID_KEY: spec<{ key: string; reason: string }>({
    status: 422,
    exit: 64,
    when: 'A setting key is empty or is not a dot path of names.',
    message: (p) =>
      `'${p.key}' is not a valid setting key: ${p.reason}. Keys are dot paths of letters, digits, '_' and '-', such as 'web.port' or 'custom.greeting'.`,
  }),
  SM_ERR_SETTINGS_INVALID_VALUE: spec<{ key: string; reason: string }>({
    status: 422,
    exit: 64,
    when: 'A setting value has the wrong type or cannot be stored as JSON.',
    message: (p) => `The value for '${p.key}' is invalid: ${p.reason}. Nothing was changed.`,
  }),
  SM_ERR_SETTINGS_NOT_FOUND: spec<{ key: string }>({
    status: 404,
    exit: 1,
    when: 'A setting was read that has no value and no default.',
    message: (p) => `No value is set for '${p.key}'. Set it with: server-manager setting set ${p.key} <value>`,
  }),
  SM_ERR_SETTINGS_UPDATE_CANCELLED: spec<{ key: string; by: string; reason: string }>({
    status: 409,
    exit: 1,
    when: 'A before_setting_update listener vetoed the change.',
    message: (p) => `The change to '${p.key}' was cancelled by '${p.by}': ${p.reason}. Nothing was changed.`,
  }),
  SM_ERR_PLUGIN_NOT_FOUND: spec<{ plugin: string }>({
    status: 404,
    exit: 66,
    when: 'A plugin name that discovery did not find.',
    message: (p) =>
      `No plugin named '${p.plugin}' was found. Run 'server-manager plugin list' to see the plugins, and check the file is in <data dir>/plugins.`,
  }),
  SM_ERR_PLUGIN_INVALID_NAME: spec<{ plugin: string }>({
    status: 422,
    exit: 65,
    when: 'A plugin file or folder name that cannot be a plugin name.',
    message: (p) =>
      `'${p.plugin}' cannot be a plugin name. Use letters, digits, '_' and '-', starting with a letter or digit (the file or folder name is the plugin name).`,
  }),
  SM_ERR_PLUGIN_DUPLICATE_NAME: spec<{ plugin: string; first: string; second: string }>({
    status: 409,
    exit: 65,
    when: 'Two plugins in one search path have the same name.',
    message: (p) =>
      `Two plugins are named '${p.plugin}': ${p.first} and ${p.second}. Rename or remove one; the second is not loaded.`,
  }),
  SM_ERR_PLUGIN_IMPORT_FAILED: spec<{ plugin: string; reason: string }>({
    status: 422,
    exit: 65,
    when: 'A plugin file does not compile, or its top-level code (or an import) throws.',
    message: (p) =>
      `The plugin '${p.plugin}' could not be imported: ${p.reason}. Fix the file; other plugins are unaffected.`,
  }),
  SM_ERR_PLUGIN_NO_CLASS: spec<{ plugin: string; reason: string }>({
    status: 422,
    exit: 65,
    when: 'A plugin module does not export exactly one PluginBase subclass (or a default one).',
    message: (p) =>
      `The plugin '${p.plugin}' has no usable plugin class: ${p.reason}. Export a class that extends PluginBase as the default export.`,
  }),
  SM_ERR_PLUGIN_INVALID_VERSION: spec<{ plugin: string }>({
    status: 422,
    exit: 65,
    when: 'A plugin class has no static version, or it is not a non-empty string.',
    message: (p) => `The plugin '${p.plugin}' has no valid version. Add \`static version = '1.0.0'\` to its class.`,
  }),
  SM_ERR_PLUGIN_ENGINES_MISMATCH: spec<{ plugin: string; range: string; api: string }>({
    status: 422,
    exit: 65,
    when: "A plugin's engines range does not include this plugin API version.",
    message: (p) =>
      `The plugin '${p.plugin}' was written for plugin API ${p.range}, but this server-manager provides ${p.api}. Update the plugin (or its engines range).`,
  }),
  SM_ERR_PLUGIN_REQUIRES_MISSING: spec<{ plugin: string; missing: string }>({
    status: 422,
    exit: 65,
    when: 'A plugin requires plugins that are not there, not enabled or failed.',
    message: (p) =>
      `The plugin '${p.plugin}' requires ${p.missing}, which is not available (missing, disabled or failed). Install and enable it first.`,
  }),
  SM_ERR_PLUGIN_REQUIRES_CYCLE: spec<{ plugin: string; cycle: string }>({
    status: 422,
    exit: 65,
    when: 'Plugins require each other in a cycle.',
    message: (p) =>
      `The plugin '${p.plugin}' is part of a requires cycle (${p.cycle}). Break the cycle; none of them is loaded.`,
  }),
  SM_ERR_PLUGIN_LOAD_FAILED: spec<{ plugin: string; phase: string; reason: string }>({
    status: 500,
    exit: 70,
    when: "A plugin's constructor or onLoad threw or timed out; the plugin is unloaded.",
    message: (p) =>
      `The plugin '${p.plugin}' failed in ${p.phase}: ${p.reason}. It was unloaded; fix it and run 'server-manager plugin reload'.`,
  }),
  SM_ERR_PLUGIN_INVALID_EVENT_NAME: spec<{ event: string }>({
    status: 422,
    exit: 64,
    when: "A custom event name that is not '<namespace>:<event>'.",
    message: (p) =>
      `'${p.event}' is not a custom event name. Use '<namespace>:<event>', both parts made of letters, digits, '_', '-' or '.', e.g. 'pingplugin:ping'.`,
  }),
  SM_ERR_PLUGIN_INVALID_PAYLOAD: spec<{ event: string }>({
    status: 422,
    exit: 64,
    when: 'A custom event payload that is not a JSON object.',
    message: (p) => `The payload of '${p.event}' must be a JSON object, such as {"a": 1}. Nothing was sent.`,
  }),
  SM_ERR_PLUGIN_STATUS_CANCELLED: spec<{ plugin: string; reason: string }>({
    status: 409,
    exit: 1,
    when: 'A before_set_plugin_status listener vetoed enabling or disabling a plugin.',
    message: (p) => `Changing the status of '${p.plugin}' was cancelled: ${p.reason}. Nothing was changed.`,
  }),
  SM_ERR_PLUGIN_FORBIDDEN: spec<{ plugin: string; what: string }>({
    status: 403,
    exit: 77,
    when: 'A plugin asked for something plugins may not have (a secret setting, say).',
    message: (p) => `The plugin '${p.plugin}' may not ${p.what}. Plugins never receive secrets.`,
  }),
  SM_ERR_PLUGIN_SCAFFOLD_EXISTS: spec<{ path: string }>({
    status: 409,
    exit: 73,
    when: "'plugin new' would overwrite an existing plugin.",
    message: (p) => `'${p.path}' already exists; nothing was written. Choose another name or remove it first.`,
  }),
  SM_ERR_CLI_INVALID_ARGUMENT: spec<{ name: string; reason: string }>({
    status: 400,
    exit: 64,
    when: 'A command-line argument or flag has an invalid value.',
    message: (p) => `Invalid ${p.name}: ${p.reason}. Run the command with --help for its usage.`,
  }),
} as const

export type ErrorCode = keyof typeof errorCatalogue
export type ErrorParams<C extends ErrorCode> = Parameters<(typeof errorCatalogue)[C]['message']>[0]
