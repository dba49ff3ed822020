import type { Service } from '../../kernel'
import type { WebServer } from './app'
import { WEB_CONTRIBUTIONS, webCommands } from './contract'
import { webErrors } from './errors'
import { webSettings } from './settings'

export type * from './contract'

/** What the web service declares: the `web:` commands, its codes and the web.* settings. */
export const webDeclarations: readonly object[] = [webCommands, webErrors, webSettings]

/**
 * The web server inside the manager: the JSON API, the pages, Swagger UI, and what plugins
 * contribute (routers, templates, static mounts), swapped live as plugins load and unload.
 */
export function webService(options: {
  version: string
  /** Overrides the settings web.host and web.port. */
  listen?: { readonly host?: string; readonly port?: number }
}): Service {
  let server: WebServer | undefined
  return {
    name: 'web',
    declares: webDeclarations,
    dependsOn: ['events', 'settings', 'auth', 'tasks'],
    async start({ bus, logger, registry }) {
      // The web stack (Koa, its middleware, the templates, the routes) loads only when a web
      // server starts: a CLI process composes the manager without one and never needs it.
      const { SWAGGER_DIST, WebServer } = require('./app') as typeof import('./app')
      const { apiRoutes } = require('./routes/api') as typeof import('./routes/api')
      const { authRoutes } = require('./routes/auth') as typeof import('./routes/auth')
      const { commandRoutes } = require('./routes/command-routes') as typeof import('./routes/command-routes')
      const { docsRoutes } = require('./routes/docs') as typeof import('./routes/docs')
      const { fileRoutes } = require('./routes/files') as typeof import('./routes/files')
      const { hostsRoutes } = require('./routes/hosts') as typeof import('./routes/hosts')
      const { metricsRoutes } = require('./routes/metrics') as typeof import('./routes/metrics')
      const { pageRoutes } = require('./routes/pages') as typeof import('./routes/pages')
      const setting = async (key: string) => (await bus.request('settings:get', { key })).value
      const web = new WebServer({
        bus,
        logger,
        version: options.version,
        maxBodyKb: Number(await setting('web.max_body_kb')),
        trustProxy: (await setting('web.trust_proxy')) === true,
        cacheTemplates: process.env.SM_WEB_DEV !== '1',
      })
      const derived = commandRoutes(web)
      web.core.push(
        // The derived routes without a path parameter first: /plugins/:name must not take /plugins/trigger_event.
        derived.fixed,
        authRoutes(web),
        ...apiRoutes(web),
        // After the hand-written routes: those win where a path is both (/plugins/pages, /plugins/:name).
        derived.withParams,
        ...fileRoutes(web),
        metricsRoutes(web),
        hostsRoutes(web),
        docsRoutes(SWAGGER_DIST),
        pageRoutes(web),
      )
      web.seal()
      registry.provide(WEB_CONTRIBUTIONS, {
        claim: (contributions) => web.layer.claim(contributions),
        release: (plugin) => web.layer.release(plugin),
      })
      bus.handle('web:status', () => ({
        listening: web.url() !== undefined,
        url: web.url(),
        plugins: web.layer.plugins,
        routes: web.routes().length,
        streamClients: web.stream.clients,
        since: new Date(web.startedAt).toISOString(),
      }))
      server = web
      if ((await setting('web.enabled')) === false) {
        logger.info('web: off (web.enabled is false)')
        return
      }
      const host = options.listen?.host ?? String(await setting('web.host'))
      const port = options.listen?.port ?? Number(await setting('web.port'))
      // Listening now, so a taken port fails the start before any plugin loads; answering only at ready.
      const url = await web.listen(host, port)
      // The names it answers to: loopback (always), web.host, the address it listens on, web.allowed_hosts.
      const names = async () => {
        const allowed = (await setting('web.allowed_hosts')) as string[]
        web.hosts.configure([String(await setting('web.host')), host, new URL(url).hostname, ...allowed])
      }
      await names()
      // Awaited by the change's emit, so a request after `setting set` sees the new names.
      const renamed = async (key: string) => {
        if (key === 'web' || key.startsWith('web.'))
          await names().catch((error: unknown) =>
            logger.error('web: the allowed host names could not be read', { error }),
          )
      }
      bus.on('after_setting_update', ({ key }) => renamed(key))
      bus.on('events:appended', async ({ events }) => {
        for (const e of events)
          if (e.type === 'after_setting_update') await renamed(String((e.payload as { key?: unknown }).key ?? ''))
      })
      bus.on('kernel:stopping', () => web.closing())
      logger.info(`web: listening on ${url} (answering once every service is up)`)
    },
    ready() {
      server?.open()
    },
    async stop() {
      server?.closing()
      await server?.close()
      server = undefined
    },
  }
}
