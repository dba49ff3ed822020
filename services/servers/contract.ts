/**
 * The servers service's contract on the bus: its commands and events as schemas, and the records
 * they carry (a server, its profile, its status, its backups, ...), whose types come from them.
 * The schemas are split by area in contract/ (records, runs, players, backups, settings,
 * schedules); this module declares them and is the one other services import.
 */
import { z } from 'zod'
import { type CommandsOf, defineCommands, defineEvents, type EventsOf } from '../../kernel'
import { backupsCommands } from './contract/backups'
import { installCommands } from './contract/install'
import { playersCommands } from './contract/players'
import { recordsCommands, serverRecord, serverSample } from './contract/records'
import { runsCommands } from './contract/runs'
import { schedule, schedulesCommands } from './contract/schedules'
import { settingsCommands } from './contract/settings'

export type * from './contract/backups'
export * from './contract/constants'
export type * from './contract/players'
export { ACCESS_LISTS } from './contract/players'
export type * from './contract/records'
export { EDITABLE_FIELDS, NO_SERVER, serverStatus, startMode } from './contract/records'
export type * from './contract/schedules'
export type * from './contract/settings'

export const serversEvents = defineEvents(
  'servers',
  {
    'servers:added': z.object({ server: serverRecord }),
    'servers:removed': z.object({
      name: z.string(),
      filesDeleted: z.boolean(),
      /** The host whose server this manager forgot (`server remove --forget`): there it stays. */
      forgotten: z.string().optional(),
    }),
    /** An admin accepted the game's EULA for the server (eula.txt now says eula=true). */
    'servers:eula_accepted': z.object({ serverName: z.string() }),
    /**
     * A server's record was changed (`server edit`): each field of `changes` set, a `null` one
     * cleared (its profile's applies again).
     */
    'servers:edited': z.object({ name: z.string(), changes: z.record(z.string(), z.unknown()) }),
    /** One backup of the server was deleted (`server backup-delete`). */
    'servers:backup_deleted': z.object({ name: z.string(), file: z.string() }),
    /** A per-server setting was set (`value` undefined: unset, it inherits again). */
    'servers:setting_changed': z.object({ name: z.string(), key: z.string(), value: z.unknown().optional() }),
    'servers:schedule_added': z.object({ schedule }),
    'servers:schedule_removed': z.object({ id: z.string(), server: z.string() }),
    /** A schedule was changed in place (same id): what it is now, and what it was. */
    'servers:schedule_changed': z.object({ schedule, previous: schedule }),
    /** A schedule ran (in the manager), with how it went. */
    'servers:schedule_ran': z.object({
      id: z.string(),
      server: z.string(),
      action: z.string(),
      result: z.object({
        status: z.enum(['success', 'error']),
        message: z.string().optional(),
        code: z.string().optional(),
      }),
    }),
    /**
     * A resource sample a followed server's supervisor took (in the manager, live; not recorded:
     * samples are a rolling series in its run directory), with who is online when the manager knows.
     */
    'servers:sampled': z.object({
      serverName: z.string(),
      sample: serverSample,
      players: z.object({ online: z.number().int(), max: z.number().int().optional() }).optional(),
    }),
    /** A line a running server wrote to its console (in the manager, live; not recorded). */
    'servers:console': z.object({ serverName: z.string(), line: z.string() }),
    /**
     * A stop (or a restart's stop) was asked and its before_server_stop hooks run: players are
     * being warned, so the panel says stopping and offers no Stop or Restart; `over` once the stop
     * went on (its status changes follow as facts) or was refused (not recorded).
     */
    'servers:stopping': z.object({ serverName: z.string(), over: z.boolean() }),
    /** Progress of a backup, restore or export (at most one per percent; not recorded). */
    'servers:backup_progress': z.object({
      serverName: z.string(),
      operation: z.enum(['backup', 'restore', 'export']),
      file: z.string(),
      bytes: z.number(),
      totalBytes: z.number(),
      files: z.number().int(),
      totalFiles: z.number().int(),
      percent: z.number(),
    }),
  },
  {
    'servers:added': 'server_added', // formerly
    'servers:removed': 'server_removed', // formerly
    'servers:eula_accepted': 'server_eula_accepted', // formerly
    'servers:setting_changed': 'server_setting_changed', // formerly
    'servers:schedule_added': 'schedule_added', // formerly
    'servers:schedule_removed': 'schedule_removed', // formerly
    'servers:schedule_ran': 'schedule_ran', // formerly
    'servers:sampled': 'server_metrics', // formerly
    'servers:console': 'server_console', // formerly
    'servers:backup_progress': 'backup_progress', // formerly
  },
)

export const serversCommands = defineCommands('servers', {
  ...recordsCommands,
  ...installCommands,
  ...runsCommands,
  ...playersCommands,
  ...backupsCommands,
  ...settingsCommands,
  ...schedulesCommands,
})

declare module '../../kernel/maps' {
  interface EventMap extends EventsOf<typeof serversEvents> {}

  interface CommandMap extends CommandsOf<typeof serversCommands> {}
}
