import { createReadStream } from 'node:fs'
import { resolve } from 'node:path'
import type Router from '@koa/router'
import { z } from 'zod'
import { SmError } from '../../../kernel'
import { isSecretName, REDACTED } from '../../../lib/secrets'
import { withoutServerSecrets, withoutServerSecretsEach } from '../../../lib/server-secrets'
import { serversCommands } from '../../servers/contract'
import { adminOnlyCommand } from '../admin-commands'
import type { WebApp } from '../app'
import { pieceStream } from '../pieces'
import { currentUser, defineRoute } from '../route'
import { visibleServers } from '../server-access'
import { NO_SERVER, RunStatus, success } from './api-schemas'

/**
 * The routes on servers that do more than one bus request: the list and one server (secrets
 * masked), console commands (admin-only words), properties read (secret keys masked), a backup's
 * download, and a server's own settings changed within the caller's role (adding, installing,
 * updating, editing and removing, power, backups, the players, the lists and the EULA are derived
 * from their commands' doors).
 */
export function serverRoutes(app: WebApp, router: Router): void {
  const { bus } = app
  const servers = ['Servers']
  defineRoute(
    router,
    {
      method: 'get',
      path: '/servers',
      name: 'list_servers',
      summary: "Servers with their status (a list never holds an environment's values, nor secret-looking arguments)",
      tags: servers,
      access: 'user',
      response: success('ServerList', { servers: serversCommands['servers:list'].reply }),
    },
    async (ctx) => ({
      status: 'success',
      servers: withoutServerSecretsEach(visibleServers(currentUser(ctx), await bus.request('servers:list', {}))),
    }),
  )
  defineRoute(
    router,
    {
      method: 'get',
      path: '/servers/:name',
      right: 'view',
      name: 'server_info',
      summary:
        "One server: its record and status (its environment's values and secret-looking arguments for admins only)",
      tags: servers,
      access: 'user',
      response: success('ServerInfo', { server: serversCommands['servers:info'].reply, run: RunStatus }),
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
      method: 'post',
      path: '/servers/:name/command',
      right: 'console',
      name: 'send_command',
      summary:
        'Send a console command, answered with its reply lines (commands that stop, reload or save the game, or change who may join or who is an operator: admins only, however they are spelled or wrapped in execute … run)',
      tags: servers,
      access: 'moderator',
      body: z.object({ command: z.string().trim().min(1).max(1000) }),
      response: success('CommandReply', { message: z.string(), ...serversCommands['servers:send'].reply.shape }),
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
      path: '/servers/:name/properties',
      right: 'settings',
      name: 'server_properties',
      summary: 'server.properties',
      tags: servers,
      access: 'moderator',
      response: success('ServerProperties', { properties: serversCommands['servers:properties'].reply }),
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
      method: 'get',
      path: '/servers/:name/backups/:file',
      right: 'backups',
      name: 'download_backup',
      summary: 'Download a backup (a zip archive: world_….mcworld or config_….zip)',
      tags: servers,
      access: 'moderator',
      paramMax: { file: 300 },
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
      method: 'put',
      path: '/servers/:name/config',
      right: 'settings',
      name: 'set_server_config',
      summary:
        "Change a server's own settings: key → value, null to inherit the global setting again; all are checked before any is changed",
      tags: servers,
      access: 'moderator',
      body: serversCommands['servers:set_settings'].payload.pick({ settings: true }),
      response: success('ServerConfigChanged', { settings: serversCommands['servers:set_settings'].reply }),
      errors: {
        403: "a moderator's retention.backups above the global retention.backups (SM_ERR_WEB_SETTING_ABOVE_ROLE)",
        404: NO_SERVER,
        422: 'A key is not a server setting, or a value is not valid for it (a custom value over 16 KiB, a key such as custom.__proto__): nothing was changed.',
      },
    },
    async (ctx, { params, body }) => {
      // How many backups are kept is the disk's policy: a moderator may keep fewer than the global setting, not more.
      const backups = body.settings['retention.backups']
      if (currentUser(ctx).role !== 'admin' && typeof backups === 'number') {
        const limit = Number((await bus.request('settings:get', { key: 'retention.backups' })).value)
        if (backups > limit)
          throw new SmError('SM_ERR_WEB_SETTING_ABOVE_ROLE', {
            server: params.name,
            key: 'retention.backups',
            value: backups,
            limit,
          })
      }
      return {
        status: 'success',
        settings: await bus.request('servers:set_settings', { name: params.name, settings: body.settings }),
      }
    },
  )
}
