/** A server's run: its status, power, console, metrics and logs. */
import { z } from 'zod'
import { command, type HttpDoor } from '../../../kernel'
import { seriesReply, seriesRequest } from '../../../lib/series-schema'
import { backupType } from './backups'
import { SERVER_FIELDS, SERVER_PEAKS } from './constants'
import {
  exitReply,
  nameAndFile,
  named,
  sendReply,
  serverArg,
  serverDoor,
  serverRunStatus,
  startMode,
  startReply,
} from './records'

/** The HTTP door of work on a server that runs as a task: 202 with its id (the document's Accepted). */
const taskDoor = (door: Omit<HttpDoor, 'tags' | 'response' | 'task' | 'status'>): HttpDoor =>
  serverDoor({ ...door, task: true, response: 'Accepted' })

/** The commands of this area, declared with the others in services/servers/contract.ts. */
export const runsCommands = {
  /**
   * The server's status now (its process identity checked, not just its PID), with who is
   * online when the manager's player tracker knows (a manager runs and follows it).
   */
  'servers:status': command(named, serverRunStatus, {
    http: serverDoor({
      method: 'get',
      path: '/servers/:name/status',
      right: 'view',
      name: 'server_status',
      summary: "A server's status (checked against the process)",
      access: 'user',
      key: 'run',
      response: 'ServerStatus',
    }),
  }),
  /** Starts it (the server_start action); answers once it is up. */
  'servers:start': command(named.extend({ mode: startMode.optional() }), startReply, {
    api: {
      name: 'startServer',
      aliases: ['start_server'],
      kind: 'change',
      params: [serverArg, { field: 'mode', schema: startMode.default('detached') }],
      message: "Server '{name}' started.",
      description:
        "Starts a server (the `server_start` action: the plugin's own `before_server_start` hooks see it too); resolves once it is up, to `{ status: 'success', message, ... }`.",
    },
  }),
  /**
   * Begins long work on a server as a task and answers at once with its id (the web API's
   * 202): its progress and result come as tasks:progress and tasks:finished. What would fail at
   * once is refused now instead (a start of what runs, a stop of what does not, a restore of a
   * backup it does not have).
   */
  'servers:begin': command(
    z.discriminatedUnion('action', [
      named.extend({ action: z.enum(['start', 'stop', 'restart']) }),
      named.extend({ action: z.literal('backup'), type: backupType.optional(), stopStart: z.boolean().optional() }),
      nameAndFile.extend({ action: z.literal('restore') }),
    ]),
    z.object({ taskId: z.string() }),
    {
      http: [
        ...(['start', 'stop', 'restart'] as const).map((action) =>
          taskDoor({
            method: 'post',
            path: `/servers/:name/${action}`,
            right: 'power',
            name: `${action}_server`,
            summary: `${action[0]?.toUpperCase()}${action.slice(1)} a server (a task: 202 with its id)`,
            access: 'moderator',
            fixed: { action },
            message: `${action} of '{name}' began.`,
            errors: {
              409: 'The server is already running (start), not running (stop), or busy with another power action, backup or restore.',
            },
          }),
        ),
        taskDoor({
          method: 'post',
          path: '/servers/:name/backups',
          right: 'backups',
          name: 'create_backup',
          summary:
            "Back up: a running server hot where its profile can, else stopped and started again (the result's warning says so); a task, progress on servers:backup_progress:<name>",
          access: 'moderator',
          input: z.object({
            type: backupType.default('world'),
            stop: z
              .boolean()
              .default(false)
              .meta({ description: 'stop the server for it even where it could be backed up hot' }),
          }),
          rename: { stop: 'stopStart' },
          fixed: { action: 'backup' },
          message: "Backup of '{name}' began.",
          errors: { 409: 'The server is busy with another power action, backup or restore.' },
        }),
        taskDoor({
          method: 'post',
          path: '/servers/:name/restore',
          right: 'backups',
          name: 'restore_backup',
          summary: 'Put a backup back (a safety backup first); a running server only with stop: true',
          access: 'admin',
          input: z.object({ file: z.string().min(1).max(300), stop: z.boolean().default(false) }),
          rename: { stop: 'stopStart' },
          fixed: { action: 'restore' },
          message: "Restore of '{file}' to '{name}' began.",
          errors: {
            404: 'No server of that name, or no backup of that name.',
            409: 'The server is busy with another power action, backup or restore.',
          },
        }),
      ],
    },
  ),
  /** Stops it (the server_stop action): the stop command, then SIGTERM, then SIGKILL. */
  'servers:stop': command(named, exitReply, {
    api: {
      name: 'stopServer',
      kind: 'change',
      params: [serverArg],
      message: "Server '{name}' stopped.",
      description:
        "Stops a server: its stop command, then SIGTERM, then SIGKILL; resolves to `{ status: 'success', message, ... }`.",
    },
  }),
  /** Stops it if it runs, then starts it (both actions fire). */
  'servers:restart': command(named, startReply, {
    api: {
      name: 'restartServer',
      kind: 'change',
      params: [serverArg],
      message: "Server '{name}' restarted.",
      description:
        "Stops a server if it runs, then starts it (both actions fire); resolves to `{ status: 'success', message, ... }`.",
    },
  }),
  /** SIGKILL now, whatever power action is in progress. */
  'servers:kill': command(named, exitReply),
  /** Sends one console command (the command_send action), with the reply lines where they are known. */
  'servers:send': command(named.extend({ command: z.string() }), sendReply, {
    api: {
      name: 'sendCommand',
      aliases: ['send_command'],
      kind: 'change',
      params: [serverArg, 'command'],
      message: "Sent to '{name}'.",
      description:
        "Sends one console command (the `command_send` action); resolves to `{ status: 'success', message, reply }`, `reply` holding the lines the server answered. A command the game refused rejects with `SM_ERR_SERVER_COMMAND_REFUSED`, its answer in the error's `params.reply`.",
    },
  }),
  /**
   * Its resource samples over a range (the last hour by default), as its supervisors wrote them
   * (`metrics.jsonl` in its run directory, and the downsampled file for older ones): from and to
   * in ms since the epoch, and a step in seconds (0 or none: as stored, averaged only past 1000
   * points). The reply's columns: `t` (ms) and one per field, null where a point lacks it.
   */
  'servers:metrics': command(named.extend(seriesRequest.shape), seriesReply(SERVER_FIELDS, SERVER_PEAKS), {
    host: { reads: true },
  }),
  /** The last lines of its console log, and the file's path (to follow it). */
  'servers:logs': command(
    named.extend({ lines: z.number().int().optional() }),
    z.object({ file: z.string(), lines: z.array(z.string()) }),
    {
      host: { reads: true },
      http: serverDoor({
        method: 'get',
        path: '/servers/:name/logs',
        right: 'console',
        name: 'server_logs',
        summary: "The last lines of a server's console (follow live with the server_log:<name> topic)",
        access: 'moderator',
        input: z.object({ lines: z.coerce.number().int().min(1).max(10_000).default(200) }),
        response: 'ConsoleLines',
      }),
    },
  ),
}
