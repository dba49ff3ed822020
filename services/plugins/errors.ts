import { defineErrors, type ErrorMapOf, spec } from '../../kernel/error-catalogue'

/** The plugins service's error codes (docs/errors.md). */
export const pluginsErrors = defineErrors('plugins', {
  SM_ERR_PLUGIN_NOT_FOUND: spec<{ plugin: string }>({
    status: 404,
    exit: 66,
    when: 'A plugin name that discovery did not find.',
    message: (p) =>
      `No plugin named '${p.plugin}' was found. Run 'server-manager plugin list' to see the plugins, and check the file is in <data dir>/plugins.`,
    web: (p) =>
      `No plugin named '${p.plugin}' was found. The Plugins page lists them; a plugin's file goes in the plugins folder of the data directory.`,
  }),
  SM_ERR_PLUGIN_MISSING: spec<{ plugin: string; path: string }>({
    status: 409,
    exit: 66,
    when: 'A plugin whose files are gone was enabled.',
    message: (p) =>
      `The plugin '${p.plugin}' is known but its files are gone from ${p.path}. Put them back (it comes back as it was), or disable it.`,
  }),
  SM_ERR_PLUGIN_INVALID_NAME: spec<{ plugin: string }>({
    status: 422,
    exit: 65,
    when: 'A plugin file or folder name that cannot be a plugin name.',
    message: (p) =>
      `'${p.plugin}' cannot be a plugin name. Use up to 64 letters, digits, '_' and '-', starting with a letter or digit (the file or folder name is the plugin name).`,
  }),
  SM_ERR_PLUGIN_BAD_FILE: spec<{ plugin: string; file: string; reason: string }>({
    status: 422,
    exit: 65,
    when: "A plugin's folder holds a symbolic link out of it, to nothing or in a loop, or a file that cannot be read.",
    message: (p) =>
      `The plugin '${p.plugin}' cannot be loaded: its file '${p.file}' ${p.reason}. A plugin's links must stay inside its folder: remove the link or copy what it points to into the plugin, then run 'server-manager plugin reload'.`,
    web: (p) =>
      `The plugin '${p.plugin}' cannot be loaded: its file '${p.file}' ${p.reason}. A plugin's links must stay inside its folder: remove the link or copy what it points to into the plugin, then reload it on the Plugins page.`,
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
  SM_ERR_PLUGIN_LOAD_TIMEOUT: spec<{ plugin: string; phase: string; ms: number; setting?: string }>({
    status: 504,
    exit: 75,
    when: "A plugin's onLoad (or onManagerStartup, onUnload, its constructor) did not finish within plugins.hook_timeout_ms, or its module's import within plugins.import_timeout_s.",
    message: (p) =>
      `The plugin '${p.plugin}' did not finish ${p.phase} within ${p.ms} ms and was cut off. Move long work out of ${p.phase} (start it without awaiting it), or raise ${p.setting ?? 'plugins.hook_timeout_ms'}; then run 'server-manager plugin reload'.`,
  }),
  SM_ERR_PLUGIN_BLOCKED_LOOP: spec<{ plugin: string; hook: string; seconds: number }>({
    status: 500,
    exit: 70,
    when: "A plugin's synchronous code (an endless loop) blocked the manager's event loop; the process was ended.",
    message: (p) =>
      `The plugin '${p.plugin}' blocked the manager's event loop for ${p.seconds} s (it last entered ${p.hook}), so the process was ended. It is not loaded until 'server-manager plugin enable ${p.plugin}' or 'plugin reload'; remove the synchronous loop from it.`,
  }),
  SM_ERR_PLUGIN_CRASH_LOOP: spec<{ plugin: string; runs: number; was: string }>({
    status: 500,
    exit: 70,
    when: "The manager's process died (killed, crashed) while a plugin was being loaded or running, that many starts in a row; the plugin is kept out.",
    message: (p) =>
      `The manager's process ended without stopping while the plugin '${p.plugin}' was ${p.was}, ${p.runs} starts in a row (a process.kill of the manager, a native crash), so it is not loaded. Fix it, then run 'server-manager plugin enable ${p.plugin}' (or 'plugin reload').`,
  }),
  SM_ERR_PLUGIN_STRAY_ERROR: spec<{ plugin: string; what: string; reason: string }>({
    status: 500,
    exit: 70,
    when: "A plugin's code threw or rejected outside any hook (a timer, a forgotten promise).",
    message: (p) =>
      `The plugin '${p.plugin}' raised ${p.what}: ${p.reason}. The manager carried on; catch errors in the plugin's timers and promises.`,
  }),
  SM_ERR_PLUGIN_TIMEOUT: spec<{ plugin: string; where: string; ms: number }>({
    status: 504,
    exit: 75,
    when: "A plugin's hook, listener or route did not return within plugins.hook_timeout_ms and its thread did not answer (an endless loop); the thread was ended. A route that only waits too long answers with it too, its thread left running.",
    message: (p) =>
      `The plugin '${p.plugin}' did not return from ${p.where} within ${p.ms} ms. Make ${p.where} return sooner (start long work without awaiting it, never loop forever), or raise plugins.hook_timeout_ms.`,
  }),
  SM_ERR_PLUGIN_OUT_OF_MEMORY: spec<{ plugin: string; where: string; mb: number }>({
    status: 507,
    exit: 70,
    when: "A plugin's thread used more memory than plugins.max_memory_mb allows; the thread was ended.",
    message: (p) =>
      `The plugin '${p.plugin}' ran out of memory (over ${p.mb} MB) in ${p.where}, so its thread was ended. Find what it keeps or allocates without bound, or raise plugins.max_memory_mb (or its own in plugins.max_memory_mb_by_plugin).`,
  }),
  SM_ERR_PLUGIN_EXTERNAL_MEMORY: spec<{ plugin: string; where: string; mb: number; limit: number }>({
    status: 507,
    exit: 70,
    when: "A plugin's thread held more memory outside its heap (Buffers, ArrayBuffers) than plugins.max_external_mb allows; the thread was ended.",
    message: (p) =>
      `The plugin '${p.plugin}' held more than ${p.limit} MB outside its heap (Buffers, ArrayBuffers; ${p.mb} MB seen) in ${p.where}, so its thread was ended. Find what it keeps without bound, or raise plugins.max_external_mb.`,
  }),
  SM_ERR_PLUGIN_EXITED: spec<{ plugin: string; where: string; code: number }>({
    status: 500,
    exit: 70,
    when: "A plugin called process.exit (it ends only the plugin's own thread).",
    message: (p) =>
      `The plugin '${p.plugin}' ended its thread with process.exit(${p.code}) in ${p.where}; the manager carried on. A plugin must not call process.exit: throw an error instead.`,
  }),
  SM_ERR_PLUGIN_CRASHED: spec<{ plugin: string; where: string; reason: string }>({
    status: 500,
    exit: 70,
    when: "A plugin's code threw or rejected where nothing caught it (a timer, a forgotten promise); its thread was ended.",
    message: (p) =>
      `The plugin '${p.plugin}' crashed in ${p.where}: ${p.reason}. Its thread was ended; catch errors in its timers and promises.`,
  }),
  SM_ERR_PLUGIN_QUARANTINED: spec<{ plugin: string; strikes: number; minutes: number; last: string }>({
    status: 503,
    exit: 69,
    when: 'A plugin failed too often (plugins.max_strikes in plugins.strike_window_s) and was stopped until an admin enables it again.',
    message: (p) =>
      `The plugin '${p.plugin}' failed ${p.strikes} times within ${p.minutes} min and is stopped (last: ${p.last}). Fix it, then run 'server-manager plugin enable ${p.plugin}' (or 'plugin reload').`,
  }),
  SM_ERR_PLUGIN_RESTARTING: spec<{ plugin: string; seconds: number }>({
    status: 503,
    exit: 75,
    when: "A request reached a plugin that is being started again after a fault: its own, or another's in the thread they shared.",
    message: (p) => `The plugin '${p.plugin}' is restarting after a fault; try again in ${p.seconds} s.`,
  }),
  SM_ERR_PLUGIN_REVOKED: spec<{ plugin: string; call: string }>({
    status: 410,
    exit: 69,
    when: 'A plugin that was unloaded, disabled or failed still called this.api.',
    message: (p) =>
      `The plugin '${p.plugin}' called ${p.call} after it was unloaded, disabled or failed; nothing was done. Stop timers and listeners in onUnload.`,
  }),
  SM_ERR_PLUGIN_INVALID_EVENT_NAME: spec<{ event: string }>({
    status: 422,
    exit: 64,
    when: "A custom event name that is not '<namespace>:<event>'.",
    message: (p) =>
      `'${p.event}' is not a custom event name. Use '<namespace>:<event>', both parts made of letters, digits, '_', '-' or '.', e.g. 'pingplugin:ping'.`,
  }),
  SM_ERR_PLUGIN_RESERVED_EVENT: spec<{ event: string; namespace: string; owner: string }>({
    status: 422,
    exit: 64,
    when: 'A custom event (sendEvent, listenForEvent, a trigger from HTTP or the CLI) named in a namespace of the core.',
    message: (p) =>
      `'${p.event}' is in the namespace '${p.namespace}', which the core ('${p.owner}') uses on the bus: plugins and triggers send and hear only custom events. Use a namespace of your own, e.g. your plugin's name ('myplugin:${p.event.slice(p.namespace.length + 1)}').`,
  }),
  SM_ERR_PLUGIN_INVALID_PAYLOAD: spec<{ event: string; reason: string }>({
    status: 422,
    exit: 64,
    when: 'A custom event payload that is not a JSON object, holds values JSON cannot carry, or is too large.',
    message: (p) =>
      `The payload of '${p.event}' cannot be sent: ${p.reason}. Send a JSON object, such as {"a": 1}, of at most 1 MiB. Nothing was sent.`,
  }),
  SM_ERR_PLUGIN_API_BAD_ARGUMENT: spec<{
    plugin: string
    call: string
    parameter: string
    reason: string
    usage: string
  }>({
    status: 422,
    exit: 64,
    when: 'A plugin called a this.api operation with an argument its declaration refuses (a wrong type, a missing one, an unknown option, one too many).',
    message: (p) =>
      `The plugin '${p.plugin}' called this.api.${p.call} with a bad ${p.parameter}: ${p.reason}. Call it as ${p.usage} (this.api.listAvailableApis() and docs/plugins.md list every operation's parameters); nothing was done.`,
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
    when: 'A plugin asked for something plugins may not have or do (a secret setting, process.exit).',
    message: (p) =>
      `The plugin '${p.plugin}' may not ${p.what}. Plugins never receive secrets and never end the manager's process.`,
  }),
  SM_ERR_PLUGIN_SCAFFOLD_EXISTS: spec<{ path: string }>({
    status: 409,
    exit: 73,
    when: "'plugin new' would overwrite an existing plugin.",
    message: (p) => `'${p.path}' already exists; nothing was written. Choose another name or remove it first.`,
  }),
  SM_ERR_CLI_COMMAND_CONFLICT: spec<{ plugin: string; other: string; what: string }>({
    status: 409,
    exit: 65,
    when: 'A plugin contributed a command or topic that a built-in command or another plugin already has.',
    message: (p) =>
      `The plugin '${p.plugin}' cannot have ${p.what}: ${p.other === 'core' ? 'server-manager has it built in' : `the plugin '${p.other}' has it`}. Rename it in '${p.plugin}' (the first one keeps working).`,
  }),
  SM_ERR_CLI_INVALID_CONTRIBUTION: spec<{ plugin: string; method: string; reason: string }>({
    status: 422,
    exit: 65,
    when: "A plugin's getCliCommands() or getCliMenuItems() returned something that is not a command, topic or menu item.",
    message: (p) =>
      `The plugin '${p.plugin}' returned a bad value from ${p.method}(): ${p.reason}. See 'CLI commands and menu items' in docs/plugins.md.`,
  }),
})

declare module '../../kernel/error-catalogue' {
  interface ErrorMap extends ErrorMapOf<typeof pluginsErrors> {}
}
