import { join } from 'node:path'
import { PluginBase } from 'server-manager'
import { defineRoute, Router, z } from 'server-manager/web'

/**
 * Web routes, a page and a static file: a JSON GET route, a POST echo route, and an HTML page
 * that extends the base layout and loads this plugin's stylesheet and script.
 */
export default class WebExample extends PluginBase<WebExample> {
  static version = '1.1.0'
  static author = 'server-manager'

  override getRouters() {
    const router = new Router()
    // A plain @koa/router route: any signed-in user may call it; it shows in /api/openapi.json.
    router.get('/web_example/info', async (ctx) => {
      ctx.body = { plugin: this.name, servers: (await this.api.listServers()).length, time: new Date().toISOString() }
    })
    // The helper adds a name, a role and schemas: the body is validated (422) and documented.
    defineRoute(
      router,
      {
        method: 'post',
        path: '/api/web_example/echo',
        name: 'web_example_echo',
        summary: 'Echo a message back',
        access: 'moderator',
        body: z.object({ message: z.string().min(1).max(500), count: z.number().int().min(1).max(10).default(1) }),
      },
      (_ctx, { body }) => ({ status: 'success', data: body, message: `Echoed ${body.count} time(s).` }),
    )
    // An HTML page from this plugin's templates folder, linked in the sidebar (its tag) as "Web example".
    defineRoute(
      router,
      {
        method: 'get',
        path: '/web_example/page',
        name: 'web_example_page',
        summary: 'Web example',
        tags: ['plugin-ui-page'],
        access: 'user',
        produces: 'text/html',
      },
      async (ctx) => {
        await ctx.render('hello', { servers: await this.api.listServers(), who: ctx.state.user?.username })
        return undefined
      },
    )
    return [router]
  }

  override getTemplatePaths() {
    return [join(__dirname, 'templates')]
  }

  override getStaticMounts(): [string, string, string][] {
    return [['/web_example/static', join(__dirname, 'static'), 'web_example_static']]
  }
}
