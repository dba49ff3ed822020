import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import Router from '@koa/router'
import { SERVER_RIGHTS } from '../../../kernel/command-doors'
import { withoutServerSecrets, withoutServerSecretsEach } from '../../../lib/server-secrets'
import { APP_PUBLIC, type WebApp } from '../app'
import { currentUser, defineRoute, type WebContext } from '../route'
import { sameOriginPath } from '../same-origin-path'
import { RouteJudge, visibleServers } from '../server-access'
import { hosts } from './hosts'

const render = (ctx: WebContext, view: string, locals: Record<string, unknown> = {}) => ctx.render(view, locals)

/** The server-rendered pages: each draws its frame and first data, and its script keeps it live. */
export function pageRoutes(app: WebApp): Router {
  const router = new Router()
  // Who may use each control a page offers: the routes' own declarations, judged as their guards judge them.
  const judge = new RouteJudge(() => app.routes().flatMap((route) => (route.owner === 'core' ? [route.layer] : [])))
  const tags = ['Pages']
  const page = (
    path: string,
    name: string,
    access: 'public' | 'user' | 'moderator' | 'admin',
    fill: (ctx: WebContext) => Promise<Record<string, unknown>> | Record<string, unknown>,
    view = name,
  ) =>
    defineRoute(
      router,
      { method: 'get', path, name: `page_${name}`, summary: `The ${name} page`, tags, access, produces: 'text/html' },
      async (ctx) => {
        await render(ctx, view, await fill(ctx))
        return undefined
      },
    )

  // What a browser asks for by itself (a JSON answer, the API docs): the panel's icon, not a 404.
  const icon = readFileSync(join(APP_PUBLIC, 'favicon.svg'))
  defineRoute(
    router,
    {
      method: 'get',
      path: '/favicon.ico',
      name: 'favicon',
      summary: "The panel's icon (SVG)",
      tags,
      access: 'public',
      produces: 'image/svg+xml',
    },
    (ctx) => {
      ctx.type = 'image/svg+xml'
      ctx.set('Cache-Control', 'public, max-age=86400')
      ctx.body = icon
      return undefined
    },
  )
  page('/login', 'login', 'public', (ctx) => ({
    title: 'Sign in',
    next: sameOriginPath(ctx.query.next, `${ctx.protocol}://${ctx.host}`),
  }))
  defineRoute(
    router,
    {
      method: 'get',
      path: '/setup',
      name: 'page_setup',
      summary: 'First-run setup',
      tags,
      access: 'public',
      produces: 'text/html',
      redirect: 'to /login once setup is done',
    },
    async (ctx) => {
      if (!(await app.setupNeeded())) {
        ctx.redirect('/login')
        return undefined
      }
      await render(ctx, 'setup', { title: 'Welcome' })
      return undefined
    },
  )
  page('/', 'dashboard', 'user', async (ctx) => {
    const user = currentUser(ctx)
    const servers = withoutServerSecretsEach(visibleServers(user, await app.bus.request('servers:list', {})))
    // The servers whose power buttons this user may press.
    const power = servers.filter((s) => judge.may(user, s.name, 'start_server')).map((s) => s.name)
    return { title: 'Dashboard', servers, power }
  })
  defineRoute(
    router,
    {
      method: 'get',
      path: '/servers/:name',
      right: 'view',
      name: 'page_server',
      summary: 'A server',
      tags,
      access: 'user',
      produces: 'text/html',
      errors: { 404: 'No server of that name.' },
    },
    async (ctx, { params }) => {
      const record = await app.bus.request('servers:info', { name: params.name })
      const server = currentUser(ctx).role === 'admin' ? record : withoutServerSecrets(record)
      const run = await app.bus.request('servers:status', { name: params.name })
      const eula = await app.bus.request('servers:eula', { name: params.name })
      const profile = await app.bus.request('servers:profile', { name: params.name })
      const can = judge.serverControls(currentUser(ctx), server.name)
      await render(ctx, 'server', { title: server.name, server, run, eula, profile, can, rights: SERVER_RIGHTS })
      return undefined
    },
  )
  page('/add-server', 'add-server', 'admin', async () => ({
    title: 'Add a server',
    serversPath: (await app.bus.request('settings:get', { key: 'paths.servers' })).value,
    hosts: (await hosts(app)).hosts,
  }))
  page('/plugins', 'plugins', 'admin', async () => ({
    title: 'Plugins',
    plugins: await app.bus.request('plugins:list', {}),
  }))
  page('/plugin-page', 'native', 'user', (ctx) => ({ title: 'Plugin page', url: String(ctx.query.url ?? '') }))
  page('/settings', 'settings', 'admin', () => ({ title: 'Settings' }))
  page('/users', 'users', 'user', (ctx) => ({ title: 'Users and tokens', me: currentUser(ctx), rights: SERVER_RIGHTS }))
  page('/events', 'events', 'admin', async () => ({
    title: 'Event log',
    servers: await app.bus.request('servers:list', {}),
  }))
  page('/tasks', 'tasks', 'user', () => ({ title: 'Tasks' }))
  page('/hosts', 'hosts', 'moderator', () => ({ title: 'Hosts' }))
  return router
}
