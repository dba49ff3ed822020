import { join } from 'node:path'
import { defineSettings, type SettingContext, wholeNumber } from '../../kernel/setting-catalogue'

/** The plugin system's settings (docs/settings.md). */
defineSettings('plugins', {
  'paths.plugins': {
    default: ({ dataDir }: SettingContext) => join(dataDir, 'plugins'),
    summary: 'the user plugins folder (a relative path is taken from the data directory)',
  },
  'plugins.hook_timeout_ms': {
    default: 10_000,
    summary: "how long a plugin's hook, listener, onLoad or onUnload may run before it is cut off",
    rule: wholeNumber(1, 600_000),
  },
  'plugins.dev_examples': {
    default: false,
    summary: 'also discover `plugins/examples/` from a source checkout',
  },
})
