import { join } from 'node:path'
import { defineSettings, type SettingContext, wholeNumber } from '../../kernel/setting-catalogue'

/** The plugin system's settings (docs/settings.md). */
export const pluginsSettings = defineSettings('plugins', {
  'paths.plugins': {
    default: ({ dataDir }: SettingContext) => join(dataDir, 'plugins'),
    summary: 'the user plugins folder (a relative path is taken from the data directory)',
  },
  'plugins.hook_timeout_ms': {
    default: 10_000,
    summary:
      "how long a plugin's hook, listener, onLoad or onUnload may run before it is cut off; twice that (at least 2 s, at most 5 s more), how long plugin code may hold the event loop (a hook, a CLI menu item) before its process is ended",
    rule: wholeNumber(1, 600_000),
  },
  'plugins.import_timeout_s': {
    default: 60,
    summary:
      "how long a plugin's module may take to import (its top-level code, a first transpile) in its thread; past it the import fails with SM_ERR_PLUGIN_LOAD_TIMEOUT",
    rule: wholeNumber(1, 3600),
  },
  'plugins.isolation': {
    default: 'shared',
    summary:
      "where plugins run: `shared` (in worker threads shared by plugins: a loop, a leak or an exit ends only the plugin at fault, and the others in its thread start again at once; a plugin that declares secret settings gets a thread of its own, and one with a heap limit of its own shares only with plugins of that limit), `thread` (each in a worker thread of its own: a fault costs only its plugin, at about 12 MB and 50 ms of start each) or `none` (in the manager's thread, for debugging; a loop there stalls the manager until the watchdog ends it)",
    rule: (value) =>
      value === 'shared' || value === 'thread' || value === 'none'
        ? undefined
        : "it must be 'shared', 'thread' or 'none'",
  },
  'plugins.max_memory_mb': {
    default: 256,
    summary:
      'the heap a plugin thread may use (MB; shared by the plugins in it); past it the thread ends with SM_ERR_PLUGIN_OUT_OF_MEMORY, blamed on the plugin whose code ran',
    rule: wholeNumber(16, 65_536),
  },
  'plugins.max_memory_mb_by_plugin': {
    default: {},
    summary: 'plugins that may use another heap than plugins.max_memory_mb, by name (`{"mapper": 1024}`)',
    rule: (value) =>
      value !== null &&
      typeof value === 'object' &&
      !Array.isArray(value) &&
      Object.values(value).every((mb) => wholeNumber(16, 65_536)(mb) === undefined)
        ? undefined
        : 'it must be an object of plugin names to whole numbers of MB from 16 to 65536',
  },
  'plugins.max_external_mb': {
    default: 256,
    summary:
      'the memory a plugin thread may hold outside its heap (MB: Buffers, ArrayBuffers; shared by the plugins in it); past it the thread ends with SM_ERR_PLUGIN_EXTERNAL_MEMORY',
    rule: wholeNumber(16, 65_536),
  },
  'plugins.max_strikes': {
    default: 3,
    summary:
      "how many faults of a plugin's thread (a timeout, out of memory, an exit, a crash) within plugins.strike_window_s quarantine it until an admin enables it again",
    rule: wholeNumber(1, 1000),
  },
  'plugins.strike_window_s': {
    default: 600,
    summary: 'the window (seconds) in which plugins.max_strikes faults quarantine a plugin',
    rule: wholeNumber(1, 604_800),
  },
  'plugins.restart_delay_s': {
    default: 1,
    summary:
      'how long after a fault of its thread a plugin is started again (seconds); it doubles with each further fault in plugins.strike_window_s, up to a minute (or this delay, when it is longer)',
    rule: wholeNumber(1, 86_400),
  },
  'plugins.dev_examples': {
    default: false,
    summary: 'also discover `plugins/examples/` from a source checkout',
  },
})
