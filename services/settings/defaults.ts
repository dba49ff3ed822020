import { join } from 'node:path'
import type { Tree } from './dot-path'

/** Directories under `paths.*`; each defaults to a folder of that name in the data directory. */
export const PATH_NAMES = ['servers', 'backups', 'plugins', 'logs', 'content', 'downloads'] as const

/**
 * Every global setting and its default. A key outside `custom` must appear here, and a stored
 * value must have its default's type (see validate.ts); `custom` is the free area for plugins.
 */
export function defaultSettings(dataDir: string): Tree {
  return {
    paths: Object.fromEntries(PATH_NAMES.map((name) => [name, join(dataDir, name)])),
    retention: { backups: 3, downloads: 3, logs: 3 },
    events: { retention_days: 365, max_events: 1_000_000 },
    web: { host: '127.0.0.1', port: 11325, token_expires_weeks: 4 },
    plugins: { hook_timeout_ms: 10_000, dev_examples: false },
    servers: { stop_timeout_sec: 60 },
    logging: { level: 'info' },
    custom: {},
  }
}
