import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { get } from 'node:http'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { expect } from 'chai'
import { traced } from '../../helpers/plugins'
import { http, startWeb, type WebSetup } from '../../helpers/web'

const ROUTES_PLUGIN = `import { PluginBase } from 'server-manager'
import { allowPublic, defineRoute, requireAdmin, Router, z } from 'server-manager/web'

export default class Routes extends PluginBase {
  static version = '1.0.0'
  getRouters() {
    const router = new Router({ prefix: '/myplugin' })
    router.get('/hello', (ctx) => { ctx.body = { hello: ctx.state.user.username } })
    router.get('/open', allowPublic, (ctx) => { ctx.body = { open: true } })
    router.get('/secret', requireAdmin, (ctx) => { ctx.body = { secret: true } })
    defineRoute(router, {
      method: 'post', path: '/echo', name: 'echo', summary: 'Echo', access: 'moderator',
      body: z.object({ text: z.string().min(1) }),
    }, (_ctx, { body }) => ({ status: 'success', data: body, message: 'echoed' }))
    defineRoute(router, {
      method: 'get', path: '/ui', name: 'ui', summary: 'My Page', tags: ['plugin-ui-native'], access: 'admin',
    }, () => ({ type: 'Text', props: { content: 'hi' } }))
    return [router]
  }
  getTemplatePaths() { return ['views'] }
  getStaticMounts() { return [['/myplugin/static', 'static', 'myplugin_static']] }
}
`

const PAGE = `<% layout('base') -%>
<% block('title', 'Greeting for ' + name) -%>
<%- contentFor('head_styles') %><style>.greet { font-weight: bold }</style>
<%- contentFor('body') %><p class="greet">Hello <%= name %></p>
<%- contentFor('body_scripts') %><script src="<%= urlFor('myplugin_static', 'js/greet.js') %>"></script>
`

const PAGE_ROUTE = `
    router.get('/page', async (ctx) => { await ctx.render('greet', { name: String(ctx.query.name) }) })`

function routesPlugin(dataDir: string, name = 'routes', extra = ''): void {
  const dir = join(dataDir, 'plugins', name)
  mkdirSync(join(dir, 'views'), { recursive: true })
  mkdirSync(join(dir, 'static', 'js'), { recursive: true })
  writeFileSync(join(dir, 'index.ts'), ROUTES_PLUGIN.replace('return [router]', `${extra}\n    return [router]`))
  writeFileSync(join(dir, 'views', 'greet.ejs'), PAGE)
  writeFileSync(join(dir, 'static', 'js', 'greet.js'), 'console.log("greet")\n')
}

const OTHER = (prefix: string, mount: [string, string]) => `import { PluginBase } from 'server-manager'
import { Router } from 'server-manager/web'
export default class Other extends PluginBase {
  static version = '1.0.0'
  getRouters() {
    const router = new Router({ prefix: '${prefix}' })
    router.get('/status', (ctx) => { ctx.body = { other: true } })
    return [router]
  }
  getStaticMounts() { return [['${mount[0]}', '.', '${mount[1]}']] }
}
`

async function openApiPaths(web: WebSetup): Promise<Record<string, Record<string, { tags: string[] }>>> {
  return (await http(`${web.url}/api/openapi.json`)).json.paths
}

const UPLOAD_PLUGIN = `import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { PluginBase } from 'server-manager'
import { defineRoute, Router, uploadedFiles } from 'server-manager/web'
export default class Uploads extends PluginBase {
  static version = '1.0.0'
  getRouters() {
    const router = new Router({ prefix: '/uploads' })
    defineRoute(router, { method: 'post', path: '/world', access: 'admin' }, (ctx) => {
      const file = uploadedFiles(ctx).world
      if (!file) return { status: 'error', message: 'no file' }
      const sha = createHash('sha256').update(readFileSync(file.path)).digest('hex')
      return { status: 'success', name: file.filename, size: file.size, sha, path: file.path, note: ctx.request.body.note }
    })
    return [router]
  }
}
`

const FLOW_PLUGIN = `import { appendFileSync, writeFileSync } from 'node:fs'
import { Readable } from 'node:stream'
import { PluginBase } from 'server-manager'
import { allowPublic, Router } from 'server-manager/web'
const trace = (line: string) => appendFileSync(process.env.SM_TEST_TRACE as string, JSON.stringify(line) + '\\n')
export default class Flow extends PluginBase {
  static version = '1.0.0'
  getRouters() {
    const router = new Router({ prefix: '/flow' })
    router.get('/endless', allowPublic, (ctx) => {
      const piece = Buffer.alloc(64 * 1024, 120)
      let produced = 0
      const stream = new Readable({
        read() {
          produced += piece.length
          writeFileSync(process.env.SM_TEST_TRACE + '.produced', String(produced))
          this.push(piece)
        },
      })
      stream.on('close', () => trace('closed'))
      ctx.body = stream
    })
    router.get('/hop/:x', allowPublic, async (_ctx, next) => { trace('param'); await next() })
    router.get('/hop/b', allowPublic, async (_ctx, next) => { trace('literal'); await next() })
    return [router]
  }
}
`

describe('services/web: plugin routers, templates, static mounts and native pages, live', () => {
  let web: WebSetup
  afterEach(async () => {
    await web?.manager.stop()
  })

  it('mounts a plugin router when the plugin is enabled and removes it when it is disabled, in OpenAPI too', async () => {
    web = await startWeb()
    routesPlugin(web.dataDir)
    await web.manager.bus.request('plugins:reload', {})
    expect((await http(`${web.url}/myplugin/hello`, { token: web.admin })).status).to.equal(404)
    expect(await openApiPaths(web)).not.to.have.property('/myplugin/hello')

    await web.manager.bus.request('plugins:set_enabled', { name: 'routes', enabled: true })
    const hello = await http(`${web.url}/myplugin/hello`, { token: web.admin })
    expect(hello.status).to.equal(200)
    expect(hello.json).to.deep.equal({ hello: 'admin' })
    const paths = await openApiPaths(web)
    expect(paths['/myplugin/hello']?.get?.tags).to.deep.equal(['routes'])
    expect(paths['/myplugin/echo']?.post).to.include({ operationId: 'echo', 'x-required-role': 'moderator' })
    expect(paths['/myplugin/secret']?.get).to.include({ 'x-required-role': 'admin' })

    await web.manager.bus.request('plugins:set_enabled', { name: 'routes', enabled: false })
    expect((await http(`${web.url}/myplugin/hello`, { token: web.admin })).status).to.equal(404)
    expect(await openApiPaths(web)).not.to.have.property('/myplugin/hello')
  })

  it('guards plugin routes: signed-in users by default, the declared role, public only when said, and validates bodies', async () => {
    web = await startWeb()
    routesPlugin(web.dataDir)
    await web.manager.bus.request('plugins:reload', {})
    await web.manager.bus.request('plugins:set_enabled', { name: 'routes', enabled: true })
    const user = await web.login('u', 'user')
    expect((await http(`${web.url}/myplugin/hello`)).status).to.equal(401)
    expect((await http(`${web.url}/myplugin/open`)).json).to.deep.equal({ open: true })
    expect((await http(`${web.url}/myplugin/secret`, { token: user })).status).to.equal(403)
    expect((await http(`${web.url}/myplugin/echo`, { token: user, body: { text: 'x' } })).status).to.equal(403)
    const echo = await http(`${web.url}/myplugin/echo`, { token: web.admin, body: { text: 'hi' } })
    expect(echo.json).to.deep.equal({ status: 'success', data: { text: 'hi' }, message: 'echoed' })
    const bad = await http(`${web.url}/myplugin/echo`, { token: web.admin, body: { text: 3 } })
    expect(bad.status).to.equal(422)
    expect(bad.json.issues[0]).to.include({ where: 'body', path: 'text' })
  })

  it("reads a route's path parameters from its path: each a non-empty string of at most paramMax characters (200 by default), one in an optional group maybe missing, checked in the plugin's thread and documented", async () => {
    web = await startWeb()
    routesPlugin(
      web.dataDir,
      'routes',
      `
    defineRoute(router, { method: 'get', path: '/items/:kind/:id', access: 'public', paramMax: { id: 4 } },
      (_ctx, { params }) => ({ status: 'success', kind: params.kind, id: params.id }))
    defineRoute(router, { method: 'get', path: '/maybe{/:id}', access: 'public' },
      (_ctx, { params }) => ({ status: 'success', id: params.id ?? null }))`,
    )
    await web.manager.bus.request('plugins:reload', {})
    await web.manager.bus.request('plugins:set_enabled', { name: 'routes', enabled: true })
    expect((await http(`${web.url}/myplugin/items/tools/1234`)).json).to.deep.equal({
      status: 'success',
      kind: 'tools',
      id: '1234',
    })
    const long = await http(`${web.url}/myplugin/items/tools/12345`)
    expect(long.status).to.equal(422)
    expect(long.json).to.include({ code: 'SM_ERR_WEB_VALIDATION' })
    expect(long.json.issues).to.deep.equal([
      { where: 'path', path: 'id', message: 'Too big: expected string to have <=4 characters' },
    ])
    const kind = await http(`${web.url}/myplugin/items/${'k'.repeat(201)}/1`)
    expect(kind.status).to.equal(422)
    expect(kind.json.issues[0]).to.include({ where: 'path', path: 'kind' })
    // One in an optional group may be missing.
    expect((await http(`${web.url}/myplugin/maybe`)).json).to.deep.equal({ status: 'success', id: null })
    expect((await http(`${web.url}/myplugin/maybe/7`)).json).to.deep.equal({ status: 'success', id: '7' })
    const params = (await openApiPaths(web))['/myplugin/items/{kind}/{id}']?.get as unknown as {
      parameters: { name: string; in: string; schema: { maxLength: number } }[]
    }
    expect(params.parameters.map((p) => [p.name, p.in, p.schema.maxLength])).to.deep.equal([
      ['kind', 'path', 200],
      ['id', 'path', 4],
    ])
  })

  it('renders a plugin template in the base layout with its blocks, serves its static files and refuses traversal', async () => {
    web = await startWeb()
    routesPlugin(web.dataDir, 'routes', PAGE_ROUTE)
    await web.manager.bus.request('plugins:reload', {})
    await web.manager.bus.request('plugins:set_enabled', { name: 'routes', enabled: true })
    const page = await http(`${web.url}/myplugin/page?name=%3Cb%3EBob`, {
      token: web.admin,
      headers: { Accept: 'text/html' },
    })
    expect(page.status).to.equal(200)
    expect(page.text).to.contain('<title>Greeting for &lt;b&gt;Bob · server-manager</title>')
    expect(page.text).to.match(/<style>\.greet \{ font-weight: bold \}<\/style>\s*<\/head>/)
    expect(page.text).to.contain('<p class="greet">Hello &lt;b&gt;Bob</p>')
    expect(page.text).to.contain('<script src="/myplugin/static/js/greet.js"></script>')
    expect(page.text).to.contain('class="sidebar"')
    expect((await http(`${web.url}/myplugin/static/js/greet.js`)).text).to.contain('greet')
    for (const path of [
      '/myplugin/static/../index.ts',
      '/myplugin/static/%2e%2e/index.ts',
      '/myplugin/static/..%2Findex.ts',
    ]) {
      const escaped = await fetch(`${web.url}${path}`)
      expect(escaped.status, path).to.be.oneOf([400, 403, 404])
    }
  })

  for (const isolation of ['thread', 'none'])
    it(`renders another plugin's page by its name (\`routes:greet\`), as that plugin has it after a reload, and says so once it is gone (plugins.isolation ${isolation})`, async () => {
      web = await startWeb({ settings: { 'plugins.isolation': isolation } })
      routesPlugin(web.dataDir, 'routes', PAGE_ROUTE)
      const dir = join(web.dataDir, 'plugins', 'borrower')
      mkdirSync(dir, { recursive: true })
      writeFileSync(
        join(dir, 'index.ts'),
        `import { PluginBase } from 'server-manager'
import { Router } from 'server-manager/web'
export default class Borrower extends PluginBase {
  static version = '1.0.0'
  getRouters() {
    const router = new Router({ prefix: '/borrower' })
    router.get('/page', async (ctx) => { await ctx.render('routes:greet', { name: 'Alex' }) })
    return [router]
  }
}
`,
      )
      await web.manager.bus.request('plugins:reload', {})
      for (const name of ['routes', 'borrower'])
        await web.manager.bus.request('plugins:set_enabled', { name, enabled: true })
      const borrowed = () => http(`${web.url}/borrower/page`, { token: web.admin, headers: { Accept: 'text/html' } })
      const page = await borrowed()
      expect(page.status, page.text).to.equal(200)
      expect(page.text).to.contain('<title>Greeting for Alex · server-manager</title>')
      expect(page.text).to.contain('<p class="greet">Hello Alex</p>')
      expect(page.text).to.contain('<script src="/myplugin/static/js/greet.js"></script>')

      // Its template edited and the plugin loaded again: the new page, not the one compiled before.
      const view = join(web.dataDir, 'plugins', 'routes', 'views', 'greet.ejs')
      writeFileSync(view, readFileSync(view, 'utf8').replace('Hello <%= name %>', 'Welcome back, <%= name %>'))
      await web.manager.bus.request('plugins:set_enabled', { name: 'routes', enabled: false })
      await web.manager.bus.request('plugins:set_enabled', { name: 'routes', enabled: true })
      expect((await borrowed()).text).to.contain('<p class="greet">Welcome back, Alex</p>')

      await web.manager.bus.request('plugins:set_enabled', { name: 'routes', enabled: false })
      const gone = await http(`${web.url}/borrower/page`, { token: web.admin })
      expect(gone.status).to.equal(500)
      expect(gone.json.code).to.equal('SM_ERR_WEB_TEMPLATE_NOT_FOUND')
    })

  it('hands a route the files of a multipart upload for the length of the request, and refuses one over web.max_upload_mb', async () => {
    web = await startWeb({ files: { 'uploads.ts': UPLOAD_PLUGIN }, enable: ['uploads'] })
    const content = Buffer.alloc(300_000, 7)
    const form = () => {
      const data = new FormData()
      data.append('note', 'a world')
      data.append('world', new Blob([content]), 'My World.mcworld')
      return data
    }
    const upload = (data: FormData) =>
      fetch(`${web.url}/uploads/world`, {
        method: 'POST',
        body: data,
        headers: { Authorization: `Bearer ${web.admin}` },
      })
    const reply = await upload(form())
    const body = (await reply.json()) as Record<string, unknown>
    expect(body).to.include({
      status: 'success',
      name: 'My World.mcworld',
      size: 300_000,
      sha: createHash('sha256').update(content).digest('hex'),
      note: 'a world',
    })
    expect(existsSync(String(body.path)), 'deleted after the request').to.equal(false)
    await web.manager.bus.request('settings:set', { key: 'web.max_upload_mb', value: 1 })
    const big = new FormData()
    big.append('world', new Blob([Buffer.alloc(1_100_000, 1)]), 'big.mcworld')
    const refused = await upload(big)
    expect(refused.status).to.equal(413)
    expect(((await refused.json()) as { code: string }).code).to.equal('SM_ERR_WEB_UPLOAD_TOO_LARGE')
  })

  it('lists native pages and EJS pages in the sidebar only to roles that may open them', async () => {
    web = await startWeb()
    // An EJS page declared for the sidebar (tag plugin-ui-page), for moderators (issue 34 item 8).
    routesPlugin(
      web.dataDir,
      'routes',
      `defineRoute(router, { method: 'get', path: '/greeting', name: 'greeting', summary: 'Greeting', tags: ['plugin-ui-page'], access: 'moderator' },
        async (ctx) => { await ctx.render('greet', { name: 'sidebar' }) })`,
    )
    await web.manager.bus.request('plugins:reload', {})
    await web.manager.bus.request('plugins:set_enabled', { name: 'routes', enabled: true })
    const user = await web.login('u', 'user')
    const admin = await http(`${web.url}/api/plugins/pages`, { token: web.admin })
    expect(admin.json.pages).to.deep.equal([
      { name: 'My Page', path: '/myplugin/ui', type: 'native' },
      { name: 'Greeting', path: '/myplugin/greeting', type: 'page' },
    ])
    expect((await http(`${web.url}/api/plugins/pages`, { token: user })).json.pages).to.deep.equal([])
    // The sidebar links the EJS page at its own path, the native one through /plugin-page.
    const dashboard = await http(`${web.url}/`, { token: web.admin, headers: { Accept: 'text/html' } })
    expect(dashboard.text).to.include('<a href="/myplugin/greeting" title="plugin: routes">Greeting</a>')
    expect(dashboard.text).to.include('<a href="/plugin-page?url=%2Fmyplugin%2Fui" title="plugin: routes">My Page</a>')
    const page = await http(`${web.url}/myplugin/greeting`, { token: web.admin, headers: { Accept: 'text/html' } })
    expect(page.text).to.include('<p class="greet">Hello sidebar</p>')
    expect(page.text).to.include('<a href="/myplugin/greeting" title="plugin: routes">Greeting</a>')
    expect((await http(`${web.url}/`, { token: user, headers: { Accept: 'text/html' } })).text).not.to.include(
      'Greeting',
    )
    expect((await http(`${web.url}/myplugin/ui`, { token: web.admin })).json).to.deep.equal({
      type: 'Text',
      props: { content: 'hi' },
    })
  })

  it('refuses a later plugin that claims a taken prefix, mount path or mount name, or shadows a core route, naming both; the first keeps working', async () => {
    web = await startWeb()
    routesPlugin(web.dataDir)
    const files: Record<string, string> = {
      'a_prefix.ts': OTHER('/myplugin', ['/a_prefix_static', 'a_prefix_static']),
      'b_core.ts': OTHER('/api', ['/b_core_static', 'b_core_static']),
      'c_mount.ts': OTHER('/c_mount', ['/myplugin/static', 'c_mount_static']),
      'd_name.ts': OTHER('/d_name', ['/d_name_static', 'myplugin_static']),
    }
    for (const [file, source] of Object.entries(files)) writeFileSync(join(web.dataDir, 'plugins', file), source)
    await web.manager.bus.request('plugins:reload', {})
    await web.manager.bus.request('plugins:set_enabled', { name: 'routes', enabled: true })
    const expected: Record<string, [string, string]> = {
      a_prefix: ["the router prefix '/myplugin'", "the plugin 'routes' has it"],
      b_core: ['the route GET /api/status', 'the core has it'],
      c_mount: ["the static mount path '/myplugin/static'", "the plugin 'routes' has it"],
      d_name: ["the static mount name 'myplugin_static'", "the plugin 'routes' has it"],
    }
    for (const [name, [what, other]] of Object.entries(expected)) {
      await web.manager.bus.request('plugins:set_enabled', { name, enabled: true })
      const record = await web.manager.bus.request('plugins:info', { name })
      expect(record.state, name).to.equal('failed')
      expect(record.error?.code, name).to.equal('SM_ERR_WEB_CONFLICT')
      expect(record.error?.message, name).to.contain(`'${name}'`).and.contain(what).and.contain(other)
    }
    expect((await http(`${web.url}/myplugin/hello`, { token: web.admin })).status).to.equal(200)
    expect((await http(`${web.url}/api/status`, { token: web.admin })).json.status).to.equal('success')
    expect((await http(`${web.url}/myplugin/static/js/greet.js`)).status).to.equal(200)
  })

  it("streams a plugin's endless body only as fast as the client reads it, and ends it in the plugin when the client goes", async () => {
    web = await startWeb({ files: { 'flow.ts': FLOW_PLUGIN }, enable: ['flow'] })
    const producedFile = `${process.env.SM_TEST_TRACE}.produced`
    const produced = () => (existsSync(producedFile) ? Number(readFileSync(producedFile, 'utf8')) : 0)
    const response = await new Promise<import('node:http').IncomingMessage>((resolve, reject) =>
      get(`${web.url}/flow/endless`, resolve).on('error', reject),
    )
    expect(response.statusCode).to.equal(200)
    // What the plugin made beyond what reached the client is held by buffers only: the thread's
    // window (1 MiB), the manager's stream and the kernel's socket buffers (here up to 4 + 32 MiB).
    const bound = 48 * 1024 * 1024
    let consumed = 0
    let ahead = 0
    for await (const chunk of response) {
      consumed += (chunk as Buffer).length
      ahead = Math.max(ahead, produced() - consumed)
      if (consumed >= 2 * bound) break // the client goes (the for-await destroys the response)
    }
    expect(ahead).to.be.below(bound)
    // The manager cancels the stream in the plugin's thread: the plugin's own stream closes.
    while (!traced().includes('closed')) await sleep(20)
  })

  it("runs a plugin's routes once for a request none of them answers, however many of them match", async () => {
    web = await startWeb({ files: { 'flow.ts': FLOW_PLUGIN }, enable: ['flow'] })
    const reply = await http(`${web.url}/flow/hop/b`)
    expect(reply.status).to.equal(404)
    expect(reply.json.code).to.equal('SM_ERR_WEB_NOT_FOUND')
    expect(traced()).to.deep.equal(['param', 'literal'])
  })
})
