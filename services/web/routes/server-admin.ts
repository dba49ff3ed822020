import { mkdirSync, renameSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import type Router from '@koa/router'
import { z } from 'zod'
import { SmError } from '../../../kernel'
import { PROFILE_NAMES } from '../../servers/contract'
import type { WebApp } from '../app'
import { currentUser, defineRoute, requiredUpload, type WebContext } from '../route'
import { BackupFile, NO_SERVER, ServerName, ServerRecord, success } from './api-schemas'

const servers = ['Servers']
const ARCHIVE =
  'the server: a Bedrock Dedicated Server zip, a Java Edition server jar, or a zip of a server folder (one folder inside is fine)'

const ServerSetting = z
  .looseObject({
    key: z.string(),
    value: z.unknown().optional().meta({ description: 'the value in effect; none when it has none' }),
    own: z
      .boolean()
      .meta({ description: 'whether the server has a value of its own (else it inherits or has its default)' }),
    inherits: z.string().optional().meta({ description: 'the global setting it follows while it has none of its own' }),
    summary: z.string(),
    kind: z.enum(['boolean', 'integer', 'json']).meta({ description: 'what its values are' }),
  })
  .meta({ id: 'ServerSetting' })

/**
 * Servers managed from the web and the API (issue 20): added from a directory, installed from an
 * uploaded archive, updated from one keeping config and worlds, removed with or without their
 * files, and their own settings (autostart, restart and backup policy, retention) read and
 * changed. Installs, updates and removals are admin work; settings are a moderator's.
 */
export function serverAdminRoutes(router: Router, app: WebApp): void {
  const { bus } = app
  defineRoute(
    router,
    {
      method: 'post',
      path: '/servers',
      name: 'add_server',
      summary: 'Add a server from a directory on this machine, or on a host agent (its profile detected unless given)',
      tags: servers,
      access: 'admin',
      body: z.object({
        name: z.string().min(1).max(64),
        dir: z
          .string()
          .min(1)
          .max(4096)
          .meta({ description: 'an existing directory on the manager’s machine, or on the host’s with `host`' }),
        profile: z.enum(PROFILE_NAMES).optional(),
        command: z.string().min(1).max(4096).optional(),
        args: z.array(z.string().max(4096)).max(100).optional(),
        stopCommand: z.string().min(1).max(200).optional(),
        worldDir: z.string().min(1).max(4096).optional(),
        readyLine: z.string().min(1).max(500).optional(),
        sayCommand: z.string().min(1).max(200).optional(),
        configFiles: z.array(z.string().min(1).max(4096)).max(50).optional(),
        hotBackup: z.string().min(1).max(1000).optional().meta({ description: "'off;flush;on' console commands" }),
        hotBackupDone: z
          .string()
          .min(1)
          .max(500)
          .optional()
          .meta({ description: 'the console message that says the flush is done (a regular expression)' }),
        errorLines: z.array(z.string().min(1).max(500)).max(50).optional(),
        chatLine: z
          .string()
          .min(1)
          .max(500)
          .optional()
          .meta({ description: "a player's chat message (a regular expression): never a command's reply" }),
        host: z
          .string()
          .regex(/^[A-Za-z0-9_-]{1,64}$/)
          .optional()
          .meta({ description: 'the host agent to add it on (GET /api/hosts); its commands then go there' }),
      }),
      status: 201,
      response: success('ServerAdded', { server: ServerRecord }),
      errors: {
        409: 'A server of that name exists, or another server has that directory.',
        422: 'The request is not valid, the directory cannot be used, or a profile field is not valid.',
      },
    },
    async (_ctx, { body }) => ({ status: 'success', server: await bus.request('servers:add', body) }),
  )
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
      params: ServerName,
      uploads: { archive: ARCHIVE },
      body: z.object({ stop: z.enum(['true', 'false']).default('false') }),
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
        stopStart: body.stop === 'true',
      })),
    }),
  )
  defineRoute(
    router,
    {
      method: 'delete',
      path: '/servers/:name',
      name: 'remove_server',
      summary:
        'Remove a stopped server from the manager: its files are kept unless delete_files=true, which deletes its directory (the reply says which was done)',
      tags: servers,
      access: 'admin',
      params: ServerName,
      query: z.object({
        delete_files: z.enum(['true', 'false']).default('false'),
        forget: z.enum(['true', 'false']).default('false').meta({
          description:
            'a server on another host that is gone for good: remove it from this manager only, without asking that host',
        }),
      }),
      response: success('ServerRemoved', {
        message: z.string(),
        dir: z.string(),
        files: z.enum(['kept', 'deleted']),
      }),
      errors: {
        404: NO_SERVER,
        409: 'The server is running: stop it first. Or, with forget, its host is online (remove it without forget).',
      },
    },
    async (_ctx, { params, query }) => {
      const { dir } = await bus.request('servers:info', { name: params.name })
      const deleteFiles = query.delete_files === 'true'
      const result = await bus.request('servers:remove', {
        name: params.name,
        deleteFiles,
        ...(query.forget === 'true' ? { forget: true } : {}),
      })
      const message = result.message ?? `Server '${params.name}' removed.`
      return { status: 'success', message, dir, files: deleteFiles ? 'deleted' : 'kept' }
    },
  )
  const regex = z.string().min(1).max(500)
  const clearable = <T extends z.ZodType>(schema: T) => schema.nullable().optional()
  defineRoute(
    router,
    {
      method: 'patch',
      path: '/servers/:name',
      name: 'edit_server',
      summary:
        "Change how a server runs and its profile fields after it was added, checked as an add checks them (null clears a field: its profile's applies again); a running game takes the change at its next start",
      tags: servers,
      access: 'admin',
      params: ServerName,
      body: z.object({
        command: z.string().min(1).max(4096).optional(),
        args: z.array(z.string().max(4096)).max(100).optional(),
        env: z.record(z.string().max(200), z.string().max(4096)).optional(),
        stopCommand: z.string().min(1).max(200).optional(),
        worldDir: clearable(z.string().min(1).max(4096)),
        readyLine: clearable(regex),
        errorLines: clearable(z.array(regex).max(50)),
        chatLine: clearable(regex),
        sayCommand: clearable(z.string().min(1).max(200)),
        configFiles: clearable(z.array(z.string().min(1).max(4096)).max(50)),
        hotBackup: clearable(z.string().min(1).max(1000)).meta({ description: "'off;flush;on' console commands" }),
        hotBackupDone: clearable(regex).meta({ description: 'the console message that says the flush is done' }),
      }),
      response: success('ServerEdited', {
        server: ServerRecord,
        changed: z.array(z.string()).meta({ description: 'the fields changed' }),
      }),
      errors: {
        404: NO_SERVER,
        422: 'The request is not valid, or a field is not (a regular expression that does not compile, a folder outside the server directory).',
      },
    },
    async (_ctx, { params, body }) => ({
      status: 'success',
      ...(await bus.request('servers:edit', { ...body, name: params.name })),
    }),
  )
  defineRoute(
    router,
    {
      method: 'get',
      path: '/servers/:name/config',
      name: 'server_config',
      summary: "A server's own settings: autostart, restart policy, backup policy, retention, memory, plugin values",
      tags: servers,
      access: 'moderator',
      params: ServerName,
      response: success('ServerConfig', { settings: z.array(ServerSetting) }),
      errors: { 404: NO_SERVER },
    },
    async (_ctx, { params }) => ({
      status: 'success',
      settings: await bus.request('servers:settings', { name: params.name }),
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
      params: ServerName,
      body: z.object({ settings: z.record(z.string().min(1).max(200), z.unknown()) }),
      response: success('ServerConfigChanged', { settings: z.array(ServerSetting) }),
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
