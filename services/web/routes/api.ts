import { createReadStream } from 'node:fs'
import { resolve } from 'node:path'
import Router from '@koa/router'
import { z } from 'zod'
import { SmError } from '../../../kernel'
import { isSecretName, REDACTED } from '../../../lib/secrets'
import { withoutServerSecrets } from '../../../lib/server-secrets'
import { roleAtLeast } from '../../auth/contract'
import { adminOnlyCommand } from '../admin-commands'
import { nativePages, presentedToken, type WebApp } from '../app'
import { pieceStream } from '../pieces'
import { currentUser, defineRoute } from '../route'
import {
  ApiToken,
  BackupFile,
  DeliveryReport,
  NO_SERVER,
  PlayerList,
  PluginRecord,
  Role,
  RunStatus,
  Schedule,
  ServerName,
  ServerRecord,
  ServerSample,
  SettingChange,
  StoredEvent,
  success,
  Task,
  User,
} from './api-schemas'
import { serverAdminRoutes } from './server-admin'
import { serverPlayerRoutes } from './server-players'

const Accepted = z
  .object({ status: z.literal('accepted'), message: z.string(), task_id: z.string() })
  .meta({ id: 'Accepted', description: 'The work runs as a task: follow GET /api/tasks/{id} or the task:<id> topic.' })
const ServerSummary = ServerRecord.extend({
  status: z.string(),
  pid: z.number().optional(),
  players: z.number().int().optional().meta({ description: 'how many are online, while the manager knows' }),
  metrics: ServerSample.optional(),
})
const ServerInfo = ServerRecord.extend({ world: z.string().optional(), dirExists: z.boolean() })
const PluginName = z.object({ name: z.string().min(1).max(200) })

/** The JSON API: status, servers, tasks, settings, plugins, the event log, users and API tokens. */
export function apiRoutes(app: WebApp): Router[] {
  const { bus } = app
  // One router per area: a request is matched only against its area's routes (see coreDispatch).
  const routers: Router[] = []
  const area = () => {
    const next = new Router({ prefix: '/api' })
    routers.push(next)
    return next
  }

  // -- status -------------------------------------------------------------------------------
  let router = area()
  defineRoute(
    router,
    {
      method: 'get',
      path: '/info',
      name: 'info',
      summary: 'The version (public)',
      tags: ['Status'],
      access: 'public',
      response: success('Info', { version: z.string() }),
    },
    () => ({ status: 'success', version: app.version }),
  )
  defineRoute(
    router,
    {
      method: 'get',
      path: '/status',
      name: 'status',
      summary: 'The manager: version, uptime, servers, plugins, web clients',
      tags: ['Status'],
      access: 'user',
      response: success('ManagerStatus', {
        version: z.string(),
        uptime_s: z.number(),
        url: z.string().optional(),
        servers: z.object({ total: z.number(), running: z.number() }),
        plugins: z.object({ total: z.number(), loaded: z.number() }),
        stream_clients: z.number(),
      }),
    },
    async () => {
      const servers = await bus.request('servers:list', {})
      const plugins = await bus.request('plugins:list', {})
      return {
        status: 'success',
        version: app.version,
        uptime_s: Math.round((Date.now() - app.startedAt) / 1000),
        url: app.url(),
        servers: { total: servers.length, running: servers.filter((s) => s.status === 'running').length },
        plugins: { total: plugins.length, loaded: plugins.filter((p) => p.state === 'loaded').length },
        stream_clients: app.stream.clients,
      }
    },
  )

  // -- servers --------------------------------------------------------------------------------
  router = area()
  const servers = ['Servers']
  serverAdminRoutes(router, app)
  serverPlayerRoutes(router, app)
  defineRoute(
    router,
    {
      method: 'get',
      path: '/servers',
      name: 'list_servers',
      summary: "Servers with their status (a list never holds an environment's values, nor secret-looking arguments)",
      tags: servers,
      access: 'user',
      response: success('ServerList', { servers: z.array(ServerSummary) }),
    },
    async () => ({ status: 'success', servers: withoutServerSecrets(await bus.request('servers:list', {})) }),
  )
  defineRoute(
    router,
    {
      method: 'get',
      path: '/servers/:name',
      name: 'server_info',
      summary:
        "One server: its record and status (its environment's values and secret-looking arguments for admins only)",
      tags: servers,
      access: 'user',
      params: ServerName,
      response: success('ServerInfo', { server: ServerInfo, run: RunStatus }),
      errors: { 404: NO_SERVER },
    },
    async (ctx, { params }) => {
      const server = await bus.request('servers:info', { name: params.name })
      return {
        status: 'success',
        server: currentUser(ctx).role === 'admin' ? server : withoutServerSecrets(server),
        run: await bus.request('servers:status', { name: params.name }),
      }
    },
  )
  defineRoute(
    router,
    {
      method: 'get',
      path: '/servers/:name/status',
      name: 'server_status',
      summary: "A server's status (checked against the process)",
      tags: servers,
      access: 'user',
      params: ServerName,
      response: success('ServerStatus', { run: RunStatus }),
      errors: { 404: NO_SERVER },
    },
    async (_ctx, { params }) => ({
      status: 'success',
      run: await bus.request('servers:status', { name: params.name }),
    }),
  )
  defineRoute(
    router,
    {
      method: 'get',
      path: '/servers/:name/players',
      name: 'server_players',
      summary: "Who is online: the game's own list command, asked now",
      tags: servers,
      access: 'user',
      params: ServerName,
      response: success('ServerPlayers', { players: PlayerList }),
      errors: {
        404: NO_SERVER,
        409: 'The server is not running.',
        422: "The server's profile cannot tell who is online (a generic server).",
        502: 'The game did not answer with a players list.',
      },
    },
    async (_ctx, { params }) => ({
      status: 'success',
      players: await bus.request('servers:players', { name: params.name }),
    }),
  )
  for (const action of ['start', 'stop', 'restart'] as const) {
    defineRoute(
      router,
      {
        method: 'post',
        path: `/servers/:name/${action}`,
        name: `${action}_server`,
        summary: `${action[0]?.toUpperCase()}${action.slice(1)} a server (a task: 202 with its id)`,
        tags: servers,
        access: 'moderator',
        params: ServerName,
        status: 202,
        response: Accepted,
        errors: {
          404: NO_SERVER,
          409: 'The server is already running (start), not running (stop), or busy with another power action, backup or restore.',
        },
      },
      async (_ctx, { params }) => {
        const { taskId } = await bus.request('servers:begin', { action, name: params.name })
        return { status: 'accepted' as const, message: `${action} of '${params.name}' began.`, task_id: taskId }
      },
    )
  }
  defineRoute(
    router,
    {
      method: 'post',
      path: '/servers/:name/command',
      name: 'send_command',
      summary:
        'Send a console command, answered with its reply lines (commands that stop, reload or save the game, or change who may join or who is an operator: admins only, however they are spelled or wrapped in execute … run)',
      tags: servers,
      access: 'moderator',
      params: ServerName,
      body: z.object({ command: z.string().trim().min(1).max(1000) }),
      response: success('CommandReply', {
        message: z.string(),
        sent: z.literal(true),
        reply: z.array(z.string()),
        warning: z
          .string()
          .optional()
          .describe(
            'the command was sent and ran, but its fact is not in the event log (a full disk): do not send it again',
          ),
      }),
      errors: {
        403: 'stop, restart, reload, save…, allowlist, whitelist, op, deop, permission, changesetting and the permission plugins’ commands are for admins (SM_ERR_WEB_COMMAND_BLOCKED), with a slash, a namespace or inside execute … run too',
        404: NO_SERVER,
        409: 'The server is not running.',
        422: 'The body is not valid (`issues` lists what), or the game refused the command (SM_ERR_SERVER_COMMAND_REFUSED: a reply line is one of its error lines, such as `Unknown command`; `reply` holds its reply lines). A refused command was sent once and is not sent again.',
      },
    },
    async (ctx, { params, body }) => {
      const user = currentUser(ctx)
      const blocked = adminOnlyCommand(body.command)
      if (blocked && user.role !== 'admin') throw new SmError('SM_ERR_WEB_COMMAND_BLOCKED', { command: blocked })
      const reply = await bus.request('servers:send', { name: params.name, command: body.command })
      return { status: 'success', message: `Sent '${body.command}' to '${params.name}'.`, ...reply }
    },
  )
  defineRoute(
    router,
    {
      method: 'get',
      path: '/servers/:name/logs',
      name: 'server_logs',
      summary: "The last lines of a server's console (follow live with the server_log:<name> topic)",
      tags: servers,
      access: 'moderator',
      params: ServerName,
      query: z.object({ lines: z.coerce.number().int().min(1).max(10_000).default(200) }),
      response: success('ConsoleLines', { file: z.string(), lines: z.array(z.string()) }),
      errors: { 404: NO_SERVER },
    },
    async (_ctx, { params, query }) => ({
      status: 'success',
      ...(await bus.request('servers:logs', { name: params.name, lines: query.lines })),
    }),
  )
  defineRoute(
    router,
    {
      method: 'get',
      path: '/servers/:name/properties',
      name: 'server_properties',
      summary: 'server.properties',
      tags: servers,
      access: 'moderator',
      params: ServerName,
      response: success('ServerProperties', { properties: z.record(z.string(), z.string()) }),
      errors: { 404: 'No server of that name, or it has no server.properties.' },
    },
    async (ctx, { params }) => {
      const properties = await bus.request('servers:properties', { name: params.name })
      // A secret-named key (rcon.password) is the admin's, like a server's environment: masked
      // below admin (only an admin may change the file, so nothing masked is ever written back).
      const admin = currentUser(ctx).role === 'admin'
      return {
        status: 'success' as const,
        properties: admin
          ? properties
          : Object.fromEntries(
              Object.entries(properties).map(([key, value]) => [key, isSecretName(key) ? REDACTED : value]),
            ),
      }
    },
  )
  defineRoute(
    router,
    {
      method: 'put',
      path: '/servers/:name/properties',
      name: 'set_server_properties',
      summary: 'Change keys of server.properties (comments and order kept)',
      tags: servers,
      access: 'admin',
      params: ServerName,
      body: z.object({
        properties: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]).transform(String)),
      }),
      response: success('PropertiesChanged', {
        changed: z.record(z.string(), z.object({ from: z.string().optional(), to: z.string() })),
      }),
      errors: {
        404: 'No server of that name, or it has no server.properties.',
        409: 'The server is busy with another power action, backup or restore.',
      },
    },
    async (_ctx, { params, body }) => ({
      status: 'success',
      ...(await bus.request('servers:set_properties', { name: params.name, properties: body.properties })),
    }),
  )
  const EulaState = success('EulaState', {
    needed: z.boolean().describe("whether the server's game runs only with its EULA accepted (Java Edition)"),
    accepted: z.boolean(),
    file: z.string(),
    url: z.string().describe('where the EULA is to be read'),
  })
  defineRoute(
    router,
    {
      method: 'get',
      path: '/servers/:name/eula',
      name: 'server_eula',
      summary: "Whether the server's game EULA is needed and accepted",
      tags: servers,
      access: 'user',
      params: ServerName,
      response: EulaState,
      errors: { 404: NO_SERVER },
    },
    async (_ctx, { params }) => ({ status: 'success', ...(await bus.request('servers:eula', { name: params.name })) }),
  )
  defineRoute(
    router,
    {
      method: 'post',
      path: '/servers/:name/eula',
      name: 'accept_server_eula',
      summary: "Accept the server's game EULA (an admin's explicit act; server-manager never does it by itself)",
      tags: servers,
      access: 'admin',
      params: ServerName,
      body: z.object({ accept: z.literal(true).describe('true: you have read the EULA and agree') }),
      response: EulaState.extend({ message: z.string() }),
      errors: { 404: NO_SERVER, 422: "The server's game has no EULA to accept." },
    },
    async (_ctx, { params }) => ({
      status: 'success',
      ...(await bus.request('servers:eula', { name: params.name, accept: true })),
      message: `The EULA of '${params.name}' is accepted: it can be started.`,
    }),
  )
  defineRoute(
    router,
    {
      method: 'get',
      path: '/servers/:name/backups',
      name: 'list_backups',
      summary: "A server's backups, newest first",
      tags: servers,
      access: 'moderator',
      params: ServerName,
      response: success('BackupList', { backups: z.array(BackupFile) }),
      errors: { 404: NO_SERVER },
    },
    async (_ctx, { params }) => ({
      status: 'success',
      backups: await bus.request('servers:backups', { name: params.name }),
    }),
  )
  defineRoute(
    router,
    {
      method: 'post',
      path: '/servers/:name/backups',
      name: 'create_backup',
      summary:
        "Back up: a running server hot where its profile can, else stopped and started again (the result's warning says so); a task, progress on servers:backup_progress:<name>",
      tags: servers,
      access: 'moderator',
      params: ServerName,
      body: z.object({
        type: z.enum(['world', 'config', 'all']).default('world'),
        stop: z
          .boolean()
          .default(false)
          .meta({ description: 'stop the server for it even where it could be backed up hot' }),
      }),
      status: 202,
      response: Accepted,
      errors: {
        404: NO_SERVER,
        409: 'The server is busy with another power action, backup or restore.',
      },
    },
    async (_ctx, { params, body }) => {
      const { taskId } = await bus.request('servers:begin', {
        action: 'backup',
        name: params.name,
        type: body.type,
        stopStart: body.stop,
      })
      return { status: 'accepted' as const, message: `Backup of '${params.name}' began.`, task_id: taskId }
    },
  )
  defineRoute(
    router,
    {
      method: 'post',
      path: '/servers/:name/restore',
      name: 'restore_backup',
      summary: 'Put a backup back (a safety backup first); a running server only with stop: true',
      tags: servers,
      access: 'admin',
      params: ServerName,
      body: z.object({ file: z.string().min(1).max(300), stop: z.boolean().default(false) }),
      status: 202,
      response: Accepted,
      errors: {
        404: 'No server of that name, or no backup of that name.',
        409: 'The server is busy with another power action, backup or restore.',
      },
    },
    async (_ctx, { params, body }) => {
      // An unknown file is refused now, not in the task.
      await bus.request('servers:backup_file', { name: params.name, file: body.file })
      const { taskId } = await bus.request('servers:begin', {
        action: 'restore',
        name: params.name,
        file: body.file,
        stopStart: body.stop,
      })
      return {
        status: 'accepted' as const,
        message: `Restore of '${body.file}' to '${params.name}' began.`,
        task_id: taskId,
      }
    },
  )
  defineRoute(
    router,
    {
      method: 'get',
      path: '/servers/:name/backups/:file',
      name: 'download_backup',
      summary: 'Download a backup (a zip archive: world_….mcworld or config_….zip)',
      tags: servers,
      access: 'moderator',
      params: ServerName.extend({ file: z.string().min(1).max(300) }),
      produces: 'application/zip',
      errors: { 404: 'No server of that name, or no backup of that name.' },
    },
    async (ctx, { params }) => {
      const backup = await bus.request('servers:backup_file', { name: params.name, file: params.file })
      ctx.attachment(backup.file)
      // Every backup is a zip archive, a world's too (.mcworld): the type the document declares,
      // not the one guessed from the extension (none for .mcworld, so application/octet-stream).
      ctx.type = 'application/zip'
      ctx.length = backup.bytes
      // A server on another host: its backup is read there, piece by piece.
      ctx.body =
        backup.host === undefined
          ? createReadStream(resolve(backup.path))
          : await pieceStream(
              (offset, length) =>
                bus.request('servers:backup_bytes', { name: params.name, file: params.file, offset, length }),
              backup.bytes,
            )
      return undefined
    },
  )
  defineRoute(
    router,
    {
      method: 'delete',
      path: '/servers/:name/backups/:file',
      name: 'delete_backup',
      summary: 'Delete one backup (a name the list gives)',
      tags: servers,
      access: 'admin',
      params: ServerName.extend({ file: z.string().min(1).max(300) }),
      response: success('BackupDeleted', { deleted: z.string() }),
      errors: {
        404: 'No server of that name, or no backup of that name.',
        409: 'A backup, restore or export of the server is under way.',
      },
    },
    async (_ctx, { params }) => ({
      status: 'success',
      ...(await bus.request('servers:delete_backup', { name: params.name, file: params.file })),
    }),
  )
  defineRoute(
    router,
    {
      method: 'get',
      path: '/servers/:name/schedules',
      name: 'list_schedules',
      summary: "A server's schedules",
      tags: servers,
      access: 'moderator',
      params: ServerName,
      response: success('ScheduleList', { schedules: z.array(Schedule) }),
      errors: { 404: NO_SERVER },
    },
    async (_ctx, { params }) => ({
      status: 'success',
      schedules: await bus.request('servers:schedule_list', { name: params.name }),
    }),
  )
  defineRoute(
    router,
    {
      method: 'post',
      path: '/servers/:name/schedules',
      name: 'add_schedule',
      summary: 'Add a schedule (cron: backup, restart or command)',
      tags: servers,
      access: 'admin',
      params: ServerName,
      body: z.object({
        cron: z.string().min(1).max(200),
        action: z.string().min(1).max(40),
        command: z.string().max(1000).optional(),
        timezone: z.string().max(100).optional(),
      }),
      status: 201,
      response: success('ScheduleAdded', { schedule: Schedule }),
      errors: { 404: NO_SERVER },
    },
    async (_ctx, { params, body }) => ({
      status: 'success',
      schedule: await bus.request('servers:schedule_add', { name: params.name, ...body }),
    }),
  )
  defineRoute(
    router,
    {
      method: 'delete',
      path: '/schedules/:id',
      name: 'remove_schedule',
      summary: 'Remove a schedule',
      tags: servers,
      access: 'admin',
      params: z.object({ id: z.string().min(1) }),
      response: success('ScheduleRemoved', { schedule: Schedule }),
      errors: { 404: 'No schedule with that id.' },
    },
    async (_ctx, { params }) => ({
      status: 'success',
      schedule: await bus.request('servers:schedule_remove', { id: params.id }),
    }),
  )

  // -- tasks ----------------------------------------------------------------------------------
  router = area()
  const tasks = ['Tasks']
  defineRoute(
    router,
    {
      method: 'get',
      path: '/tasks',
      name: 'list_tasks',
      summary: 'Recent tasks, newest first',
      tags: tasks,
      access: 'user',
      query: z.object({ limit: z.coerce.number().int().min(1).max(1000).default(50) }),
      response: success('TaskList', { tasks: z.array(Task) }),
    },
    async (_ctx, { query }) => ({
      status: 'success',
      tasks: withoutServerSecrets(await bus.request('tasks:list', { limit: query.limit })),
    }),
  )
  defineRoute(
    router,
    {
      method: 'get',
      path: '/tasks/:id',
      name: 'get_task',
      summary: 'One task (by its id or any unique start of it): state, progress, result or error',
      tags: tasks,
      access: 'user',
      params: z.object({ id: z.string().min(1) }),
      response: success('TaskInfo', { task: Task }),
      errors: { 404: 'No task with that id.', 409: 'The start of an id fits more than one task.' },
    },
    async (_ctx, { params }) => ({
      status: 'success',
      task: withoutServerSecrets(await bus.request('tasks:get', { id: params.id })),
    }),
  )
  defineRoute(
    router,
    {
      method: 'post',
      path: '/tasks/:id/cancel',
      name: 'cancel_task',
      summary: 'Cancel a queued or running task (by its id or any unique start of it): it ends at once',
      tags: tasks,
      access: 'moderator',
      params: z.object({ id: z.string().min(1) }),
      response: success('TaskCancelled', { task: Task }),
      errors: {
        404: 'No task with that id.',
        409: 'The task has already ended, or the start of an id fits more than one task.',
      },
    },
    async (_ctx, { params }) => ({
      status: 'success',
      task: withoutServerSecrets(await bus.request('tasks:cancel', { id: params.id })),
    }),
  )

  // -- settings -------------------------------------------------------------------------------
  router = area()
  const settings = ['Settings']
  defineRoute(
    router,
    {
      method: 'get',
      path: '/settings',
      name: 'list_settings',
      summary: 'Every global setting (defaults merged; secrets redacted, never revealed here)',
      tags: settings,
      access: 'admin',
      response: success('SettingList', { settings: z.record(z.string(), z.unknown()) }),
    },
    async () => ({ status: 'success', settings: await bus.request('settings:get_all', { redact: 'mask' }) }),
  )
  defineRoute(
    router,
    {
      method: 'get',
      path: '/settings/:key',
      name: 'get_setting',
      summary:
        'One global setting (secrets redacted; ?reveal=true shows a secret to an admin signed in with a session, not an API token)',
      tags: settings,
      access: 'admin',
      params: z.object({ key: z.string().min(1).max(200) }),
      query: z.object({ reveal: z.enum(['true', 'false']).default('false') }),
      response: success('SettingValue', { key: z.string(), value: z.unknown(), secret: z.boolean() }),
      errors: {
        403: 'revealing a secret needs a signed-in session, not an API token',
        404: 'No setting of that key.',
      },
    },
    async (ctx, { params, query }) => {
      const reveal = query.reveal === 'true'
      // Reading a secret is a person's explicit act: a script's token never reveals one.
      if (reveal && currentUser(ctx).via === 'token')
        throw new SmError('SM_ERR_AUTH_FORBIDDEN', {
          role: `${currentUser(ctx).role} (API token)`,
          required: 'a signed-in session to reveal a secret',
        })
      const reply = await bus.request(
        'settings:get',
        reveal ? { key: params.key } : { key: params.key, redact: 'mask' },
      )
      if (!reply.found) throw new SmError('SM_ERR_SETTINGS_NOT_FOUND', { key: params.key })
      return { status: 'success', key: params.key, value: reply.value, secret: reply.secret === true }
    },
  )
  defineRoute(
    router,
    {
      method: 'put',
      path: '/settings/:key',
      name: 'set_setting',
      summary:
        'Set a global setting (validated; the setting_update hooks run; secret: true makes the key secret for good)',
      tags: settings,
      access: 'admin',
      params: z.object({ key: z.string().min(1).max(200) }),
      body: z.object({ value: z.unknown(), secret: z.boolean().optional() }),
      response: success('SettingSet', { message: z.string(), change: SettingChange }),
      errors: {
        404: 'No setting of that key (outside custom.*, only declared settings exist).',
        409: "A plugin's before_setting_update hook cancelled the change.",
        507: 'The disk that holds the data directory is full: nothing was changed.',
      },
    },
    async (_ctx, { params, body }) => {
      // A secret is shown redacted; saving the placeholder back would overwrite the secret with it.
      if (body.value === REDACTED)
        throw new SmError('SM_ERR_WEB_VALIDATION', {
          summary: `body 'value': '${REDACTED}' is the placeholder shown for a secret, not a value`,
          issues: [{ where: 'body', path: 'value', message: 'the redaction placeholder cannot be stored' }],
        })
      const change = await bus.request('settings:set', {
        key: params.key,
        value: body.value,
        mode: 'replace',
        ...(body.secret === true ? { secret: true } : {}),
      })
      return { status: 'success', message: `Setting '${params.key}' updated.`, change }
    },
  )
  defineRoute(
    router,
    {
      method: 'delete',
      path: '/settings/:key',
      name: 'unset_setting',
      summary: 'Unset a global setting (back to its default)',
      tags: settings,
      access: 'admin',
      params: z.object({ key: z.string().min(1).max(200) }),
      response: success('SettingUnset', { change: SettingChange }),
      errors: {
        404: 'No setting of that key (outside custom.*, only declared settings exist).',
        409: "A plugin's before_setting_update hook cancelled the change.",
        507: 'The disk that holds the data directory is full: nothing was changed.',
      },
    },
    async (_ctx, { params }) => ({
      status: 'success',
      change: await bus.request('settings:unset', { key: params.key }),
    }),
  )

  // -- plugins (compatible with the original's endpoints) ------------------------------------
  router = area()
  const plugins = ['Plugin Management']
  defineRoute(
    router,
    {
      method: 'post',
      path: '/plugins/trigger_event',
      name: 'trigger_event',
      summary: 'Trigger a custom plugin event (listeners get sender external_api_trigger)',
      tags: plugins,
      access: 'admin',
      body: z.object({
        event_name: z.string().min(1, 'Event name is required to trigger a custom plugin event.').max(200),
        payload: z.record(z.string(), z.unknown()).nullable().optional(),
      }),
      response: success('EventTriggered', { message: z.string(), details: DeliveryReport }),
    },
    async (_ctx, { body }) => {
      const report = await bus.request('plugins:trigger_event', { event: body.event_name, payload: body.payload ?? {} })
      return { status: 'success' as const, message: `Event '${body.event_name}' triggered.`, details: report }
    },
  )
  defineRoute(
    router,
    {
      method: 'get',
      path: '/plugins/pages',
      name: 'plugin_pages',
      summary: 'Native plugin pages the caller may open',
      tags: plugins,
      access: 'user',
      response: success('PluginPages', {
        message: z.null(),
        pages: z.array(z.object({ name: z.string(), path: z.string(), type: z.string() })),
      }),
    },
    (ctx) => ({
      status: 'success',
      message: null,
      pages: nativePages(app.routes(), currentUser(ctx).role).map(({ name, path, type }) => ({ name, path, type })),
    }),
  )
  defineRoute(
    router,
    {
      method: 'get',
      path: '/plugins',
      name: 'list_plugins',
      summary: 'Every discovered plugin: enabled, version, state, errors',
      tags: plugins,
      access: 'admin',
      response: success('PluginList', { message: z.null(), plugins: z.record(z.string(), PluginRecord) }),
    },
    async () => {
      const records = await bus.request('plugins:list', {})
      return { status: 'success', message: null, plugins: Object.fromEntries(records.map((r) => [r.name, r])) }
    },
  )
  defineRoute(
    router,
    {
      method: 'put',
      path: '/plugins/reload',
      name: 'reload_plugins',
      summary: 'Reload every plugin from disk',
      tags: plugins,
      access: 'admin',
      response: success('PluginsReloaded', {
        message: z.string(),
        details: z.looseObject({ loaded: z.array(z.string()), failed: z.array(z.string()), ms: z.number() }),
      }),
    },
    async () => {
      const report = await bus.request('plugins:reload', {})
      return { status: 'success', message: 'Plugins have been reloaded successfully.', details: report }
    },
  )
  defineRoute(
    router,
    {
      method: 'post',
      path: '/plugins/:name',
      name: 'set_plugin_enabled',
      summary: 'Enable or disable a plugin (it loads or unloads at once; its routes follow)',
      tags: plugins,
      access: 'admin',
      params: PluginName,
      body: z.object({ enabled: z.boolean() }),
      response: success('PluginEnabled', {
        message: z.string(),
        details: PluginRecord.optional(),
        task_id: z.null(),
      }),
      errors: {
        404: 'No plugin of that name.',
        409: 'The plugin cannot be changed now (its files are missing, or a hook refused).',
        507: 'The disk that holds the data directory is full: nothing was changed.',
      },
    },
    async (_ctx, { params, body }) => {
      const result = await bus.request('plugins:set_enabled', { name: params.name, enabled: body.enabled })
      if (result.status !== 'success')
        throw new SmError('SM_ERR_INTERNAL', { reason: result.message ?? 'the plugin was not changed' })
      const record = (await bus.request('plugins:list', {})).find((p) => p.name === params.name)
      return {
        status: 'success',
        message: `Plugin '${params.name}' has been ${body.enabled ? 'enabled' : 'disabled'}.`,
        details: record,
        task_id: null,
      }
    },
  )
  defineRoute(
    router,
    {
      method: 'get',
      path: '/plugins/:name',
      name: 'plugin_info',
      summary: 'One plugin: its record, hooks and listeners',
      tags: plugins,
      access: 'admin',
      params: PluginName,
      response: success('PluginInfo', {
        plugin: PluginRecord.extend({ hooks: z.array(z.string()), listeners: z.number() }),
      }),
      errors: { 404: 'No plugin of that name.' },
    },
    async (_ctx, { params }) => ({
      status: 'success',
      plugin: await bus.request('plugins:info', { name: params.name }),
    }),
  )

  // -- the event log ----------------------------------------------------------------------------
  router = area()
  const events = ['Events']
  defineRoute(
    router,
    {
      method: 'get',
      path: '/events',
      name: 'list_events',
      summary: 'The event log (facts), oldest first; filter by type (prefix*), time and sequence',
      tags: events,
      access: 'admin',
      query: z.object({
        types: z.string().optional().meta({ description: 'comma-separated; a trailing * matches a prefix' }),
        after: z.coerce.number().int().min(0).optional(),
        since: z.string().optional(),
        until: z.string().optional(),
        limit: z.coerce.number().int().min(1).max(10_000).default(100),
        tail: z.enum(['true', 'false']).optional(),
      }),
      response: success('EventList', { events: z.array(StoredEvent) }),
    },
    async (_ctx, { query }) => ({
      status: 'success',
      events: await bus.request('events:read', {
        types: query.types ? [query.types] : undefined,
        afterSeq: query.after,
        since: query.since,
        until: query.until,
        limit: query.limit,
        tail: query.tail === 'true',
      }),
    }),
  )
  defineRoute(
    router,
    {
      method: 'get',
      path: '/events/stream',
      name: 'event_stream',
      summary:
        'Live Server-Sent Events: topics server_status, tasks, task:<id>, players:<server>, server_log:<server>, servers:backup_progress:<server>, servers:sampled[:<server>], metrics:host_sampled, event:<type>',
      tags: events,
      access: 'user',
      query: z.object({ topics: z.string().default('server_status') }),
      produces: 'text/event-stream',
      errors: { 403: "A topic above the caller's role." },
    },
    (ctx, { query }) => {
      app.stream.open(
        ctx as never,
        query.topics
          .split(',')
          .map((t) => t.trim())
          .filter(Boolean),
        currentUser(ctx),
        presentedToken(ctx).token ?? '',
      )
      return undefined
    },
  )

  // -- users and API tokens -------------------------------------------------------------------
  router = area()
  const users = ['Users']
  const Username = z.object({ username: z.string().min(1).max(80) })
  defineRoute(
    router,
    {
      method: 'get',
      path: '/users',
      name: 'list_users',
      summary: 'Users and their roles',
      tags: users,
      session: true,
      access: 'moderator',
      response: success('UserList', { users: z.array(User) }),
    },
    async () => ({ status: 'success', users: await bus.request('auth:list_users', {}) }),
  )
  defineRoute(
    router,
    {
      method: 'post',
      path: '/users',
      name: 'create_user',
      summary: 'Create a user',
      tags: users,
      session: true,
      access: 'admin',
      body: z.object({
        username: z.string().min(1).max(80),
        password: z.string().min(1).max(1024),
        role: Role.default('user'),
      }),
      status: 201,
      response: success('UserCreated', { user: User }),
      errors: { 409: 'A user of that name exists.' },
    },
    async (_ctx, { body }) => ({ status: 'success', user: await bus.request('auth:create_user', body) }),
  )
  defineRoute(
    router,
    {
      method: 'put',
      path: '/users/:username/role',
      name: 'set_user_role',
      summary: "Change a user's role (the last admin stays)",
      tags: users,
      session: true,
      access: 'admin',
      params: Username,
      body: z.object({ role: Role }),
      response: success('UserRoleSet', { user: User }),
      errors: { 404: 'No user of that name.', 409: 'The last admin stays an admin.' },
    },
    async (_ctx, { params, body }) => ({
      status: 'success',
      user: await bus.request('auth:set_role', { username: params.username, role: body.role }),
    }),
  )
  defineRoute(
    router,
    {
      method: 'put',
      path: '/users/:username/password',
      name: 'set_user_password',
      summary:
        "Set a user's password: your own with current_password; an admin anyone else's without it. Their sessions end.",
      tags: users,
      session: true,
      access: 'user',
      params: Username,
      body: z.object({
        password: z.string().min(1).max(1024),
        current_password: z.string().max(1024).optional().meta({ description: 'required for your own password' }),
      }),
      response: success('UserPasswordSet', { user: User }),
      errors: {
        403: "only admins set another user's password",
        404: 'No user of that name.',
        429: 'Too many wrong current passwords: wait (Retry-After).',
      },
    },
    async (ctx, { params, body }) => {
      const user = currentUser(ctx)
      if (user.username.toLowerCase() === params.username.toLowerCase())
        return {
          status: 'success',
          user: await bus.request('auth:change_password', {
            username: user.username,
            current: body.current_password ?? '',
            password: body.password,
            client: ctx.ip,
          }),
        }
      if (user.role !== 'admin') throw new SmError('SM_ERR_AUTH_FORBIDDEN', { role: user.role, required: 'admin' })
      return {
        status: 'success',
        user: await bus.request('auth:reset_password', { username: params.username, password: body.password }),
      }
    },
  )
  defineRoute(
    router,
    {
      method: 'delete',
      path: '/users/:username',
      name: 'delete_user',
      summary: 'Delete a user (and their API tokens)',
      tags: users,
      session: true,
      access: 'admin',
      params: Username,
      response: success('UserDeleted', { user: User }),
      errors: { 404: 'No user of that name.', 409: 'The last admin cannot be deleted.' },
    },
    async (_ctx, { params }) => ({
      status: 'success',
      user: await bus.request('auth:delete_user', { username: params.username }),
    }),
  )
  defineRoute(
    router,
    {
      method: 'get',
      path: '/tokens',
      name: 'list_tokens',
      summary: 'API tokens (admins: all; others: their own)',
      tags: users,
      session: true,
      access: 'user',
      response: success('TokenList', { tokens: z.array(ApiToken) }),
    },
    async (ctx) => {
      const user = currentUser(ctx)
      const all = await bus.request('auth:list_tokens', {})
      return {
        status: 'success',
        tokens: user.role === 'admin' ? all : all.filter((t) => t.owner.toLowerCase() === user.username.toLowerCase()),
      }
    },
  )
  defineRoute(
    router,
    {
      method: 'post',
      path: '/tokens',
      name: 'create_token',
      summary: "Create an API token acting for the caller (its role at most the caller's); the token is shown once",
      tags: users,
      session: true,
      access: 'user',
      body: z.object({
        name: z.string().trim().min(1).max(80),
        role: Role,
        expires_days: z.number().int().min(1).max(3650).optional(),
      }),
      status: 201,
      response: success('TokenCreated', { message: z.string(), token: z.string(), record: ApiToken }),
      errors: {
        403: "an API token cannot create tokens, nor a role above the caller's",
        404: "The caller's account was deleted meanwhile.",
      },
    },
    async (ctx, { body }) => {
      const user = currentUser(ctx)
      if (!roleAtLeast(user.role, body.role))
        throw new SmError('SM_ERR_AUTH_ROLE_TOO_HIGH', { role: body.role, owner: user.username, ownerRole: user.role })
      const created = await bus.request('auth:create_token', {
        name: body.name,
        role: body.role,
        owner: user.username,
        ownerId: user.userId,
        expiresDays: body.expires_days,
      })
      return {
        status: 'success',
        message: 'Copy the token now: it is not shown again.',
        token: created.token,
        record: created.record,
      }
    },
  )
  defineRoute(
    router,
    {
      method: 'delete',
      path: '/tokens/:id',
      name: 'revoke_token',
      summary: 'Revoke an API token (its owner or an admin)',
      tags: users,
      session: true,
      access: 'user',
      params: z.object({ id: z.string().min(1).max(40) }),
      response: success('TokenRevoked', { token: ApiToken }),
      errors: { 404: 'No API token with that id (of the caller, unless an admin).' },
    },
    async (ctx, { params }) => {
      const user = currentUser(ctx)
      const token = (await bus.request('auth:list_tokens', {})).find((t) => t.id === params.id)
      if (token && user.role !== 'admin' && token.owner.toLowerCase() !== user.username.toLowerCase())
        throw new SmError('SM_ERR_AUTH_TOKEN_NOT_FOUND', { id: params.id })
      return { status: 'success', token: await bus.request('auth:revoke_token', { id: params.id }) }
    },
  )

  // -- the API's description ------------------------------------------------------------------
  router = area()
  defineRoute(
    router,
    {
      method: 'get',
      path: '/openapi.json',
      name: 'openapi',
      summary: 'This document',
      tags: ['Docs'],
      access: 'public',
      response: z.looseObject({
        openapi: z.string(),
        info: z.looseObject({}),
        paths: z.record(z.string(), z.unknown()),
      }),
    },
    () => app.openApi() as { openapi: string; info: object; paths: object },
  )
  return routers
}
