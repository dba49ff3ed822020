import { join } from 'node:path'
import { defineSettings, type SettingContext, wholeNumber } from '../../kernel/setting-catalogue'

/** How game servers are run and supervised (docs/settings.md). */
export const serversSettings = defineSettings('servers', {
  'servers.start_timeout_s': {
    default: 300,
    summary: "how long `server start` waits for the server's ready line before it reports it still starting",
    rule: wholeNumber(1, 86_400),
  },
  'servers.stop_timeout_s': {
    default: 60,
    summary: 'how long a stop waits after the stop command before it sends SIGTERM',
    rule: wholeNumber(0, 86_400),
  },
  'servers.kill_timeout_s': {
    default: 10,
    summary: 'how long a stop waits after SIGTERM before it sends SIGKILL',
    rule: wholeNumber(0, 3_600),
  },
  'servers.restart.enabled': {
    default: true,
    summary:
      'restart a server that crashed (by its supervisor, with or without a manager running, or by whoever finds a crash its supervisor did not see)',
  },
  'servers.restart.max_restarts': {
    default: 3,
    summary: 'crash restarts in a row before the server is left `crashed`',
    rule: wholeNumber(0, 1_000),
  },
  'servers.restart.min_uptime_s': {
    default: 60,
    summary: 'a run at least this long ends a crash streak (the restart count starts again)',
    rule: wholeNumber(0, 86_400),
  },
  'servers.restart.delay_ms': {
    default: 2_000,
    summary: 'the pause before a crash restart',
    rule: wholeNumber(0, 3_600_000),
  },
  'servers.log_max_bytes': {
    default: 10 * 1024 * 1024,
    summary: "a server's console.log is rotated past this size",
    rule: wholeNumber(64 * 1024, 1024 * 1024 * 1024),
  },
  'servers.backup.hot': {
    default: true,
    summary:
      'back up (and export) a running server hot where its profile can (bedrock save hold, java or --hot-backup commands: it keeps running); false: stop, back up, start',
  },
  'servers.max_unpacked_mb': {
    default: 32_768,
    summary:
      'the most one archive may unpack to, in MB (an install or update from a zip, a restore, a world import): counted as it is unpacked, not only as it declares; it must also fit the free space of the disk it goes to',
    rule: wholeNumber(1, 16 * 1024 * 1024),
  },
  'paths.backups': {
    default: ({ dataDir }: SettingContext) => join(dataDir, 'backups'),
    summary: 'where backups are kept, one folder per server',
  },
  'paths.servers': {
    default: ({ dataDir }: SettingContext) => join(dataDir, 'server-files'),
    summary: '`server install` puts each new server in a folder named after it here (unless --dir)',
  },
  'retention.backups': {
    default: 3,
    summary:
      'backups of each kind (world, config) kept per server; older ones are deleted after each backup. Safety copies a restore or import takes (_pre-restore, _pre-import) are counted apart: as many of them are kept, and they never push out a backup',
    rule: wholeNumber(1, 10_000),
  },
  'retention.backup_days': {
    default: 0,
    summary: 'also delete backups older than this many days (0: no age limit)',
    rule: wholeNumber(0, 36_500),
  },
  'retention.logs': {
    default: 5,
    summary: 'rotated console logs kept per server (console.log.1 is the newest)',
    rule: wholeNumber(0, 1_000),
  },
})
