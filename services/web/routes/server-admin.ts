import { mkdirSync, renameSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import type Router from '@koa/router'
import { z } from 'zod'
import { queryFlag, SmError } from '../../../kernel'
import { serversCommands } from '../../servers/contract'
import type { WebApp } from '../app'
import { currentUser, defineRoute, requiredUpload, type WebContext } from '../route'
import { BackupFile, NO_SERVER, ServerRecord, success } from './api-schemas'

const servers = ['Servers']
const ARCHIVE =
  'the server: a Bedrock Dedicated Server zip, a Java Edition server jar, or a zip of a server folder (one folder inside is fine)'

/**
 * Servers managed from the web and the API (issue 20) where a route does more than its command:
 * installed from an uploaded archive, updated from one keeping config and worlds, and their own
 * settings (autostart, restart and backup policy, retention) changed within the caller's role.
 * Installs and updates are admin work; settings are a moderator's. Adding, editing, removing and
 * reading the settings are derived from their commands' doors.
 */
export function serverAdminRoutes(router: Router, app: WebApp): void {
  const { bus } = app
  defineRoute(
    router,
    {
      method: 'post',
      path: '/servers/install',
      name: 'install_server',
      summary:
        'Install a server from an uploaded archive into paths.servers/<name> (or dir) and add it; its EULA, if it has one, is left for an admin to accept',
      tags: servers,
      access: 'admin',
      uploads: { archive: ARCHIVE },
      body: z.object({
        name: z.string().min(1).max(64),
        dir: z.string().min(1).max(4096).optional().meta({ description: 'where to put it (empty or new)' }),
      }),
      status: 201,
      response: success('ServerInstalled', { server: ServerRecord }),
      errors: {
        409: 'A server of that name exists.',
        422: 'The archive holds no server, the directory is not empty, or the request is not valid.',
      },
    },
    async (ctx, { body }) => ({
      status: 'success',
      server: await bus.request('servers:install', { name: body.name, dir: body.dir, from: named(ctx, 'archive') }),
    }),
  )
  defineRoute(
    router,
    {
      method: 'post',
      path: '/servers/:name/update',
      name: 'update_server',
      summary:
        "Update a server from an uploaded release (Bedrock zip, Java jar or zip), keeping its config files and worlds; everything is backed up first. A running server only with stop: 'true' (stopped, updated, started again)",
      tags: servers,
      access: 'admin',
      uploads: { archive: ARCHIVE },
      body: z.object({ stop: queryFlag() }),
      response: success('ServerUpdated', {
        replaced: z.array(z.string()).meta({ description: 'the top-level files and folders replaced' }),
        backup: z.array(BackupFile).meta({ description: 'what was backed up before' }),
      }),
      errors: {
        404: NO_SERVER,
        409: "The server is running (send stop: 'true'), or busy with another power action, backup or restore.",
        422: 'The archive holds no server of its game, or the server is generic (update its files instead).',
      },
    },
    async (ctx, { params, body }) => ({
      status: 'success',
      ...(await bus.request('servers:update', {
        name: params.name,
        from: named(ctx, 'archive'),
        stopStart: body.stop,
      })),
    }),
  )
  defineRoute(
    router,
    {
      method: 'put',
      path: '/servers/:name/config',
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

/**
 * The uploaded `field` under the name the client gave it (made safe): an install keeps a jar's
 * own name, and the archive type is read from it. Where the request's other uploads are, so it
 * goes when the request ends.
 */
function named(ctx: WebContext, field: string): string {
  const file = requiredUpload(ctx, field)
  const safe = basename(file.filename)
    .replace(/[^A-Za-z0-9._-]/g, '_')
    .slice(-120)
  const name = /^\.*$/.test(safe) ? 'upload' : safe
  const dir = join(dirname(file.path), `named-${basename(file.path)}`)
  mkdirSync(dir)
  const path = join(dir, name)
  renameSync(file.path, path)
  return path
}
