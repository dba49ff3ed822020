import type Router from '@koa/router'
import { z } from 'zod'
import { SmError } from '../../../kernel'
import { pluginPages, type WebApp } from '../app'
import { currentUser, defineRoute } from '../route'
import { reachRole } from '../server-access'
import { declaredReply, success } from './api-schemas'

/** The plugin management routes (compatible with the original's endpoints) that reshape a reply or call several commands (a reload, a custom event triggered and one plugin's info are derived from their commands' doors). */
export function pluginRoutes(app: WebApp, router: Router): void {
  const { bus } = app
  const plugins = ['Plugin Management']
  const PluginRecord = declaredReply(app, 'plugins:list', 'PluginRecord')
  defineRoute(
    router,
    {
      method: 'get',
      path: '/plugins/pages',
      name: 'plugin_pages',
      summary:
        'Plugin pages the caller may open: native (drawn by the UI at /plugin-page?url=<path>) and EJS pages (type page, opened at their path)',
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
      // As far as the caller's reach goes, as the sidebar lists them (held to server grants: a user's).
      pages: pluginPages(app.layer.routes(), reachRole(currentUser(ctx))).map(({ name, path, type }) => ({
        name,
        path,
        type,
      })),
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
      method: 'post',
      path: '/plugins/:name',
      name: 'set_plugin_enabled',
      summary: 'Enable or disable a plugin (it loads or unloads at once; its routes follow)',
      tags: plugins,
      access: 'admin',
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
}
