import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import { z } from 'zod'
import { TASKS } from '../../../services/tasks/contract'
import { fakeBedrockDir, killServers } from '../../helpers/game'
import { run } from '../../helpers/run'
import { afterItsUser } from '../../helpers/run-end'
import { tempDir } from '../../helpers/temp-dir'
import { postFile } from '../../helpers/upload'
import { ADMIN_PASSWORD, parseJson, signIn, startWeb, type WebSetup } from '../../helpers/web'

// biome-ignore lint/suspicious/noExplicitAny: the document is walked as plain JSON
type Json = any

interface Operation {
  readonly method: string
  readonly path: string
  readonly spec: Json
}

const REDOCLY = require.resolve('@redocly/cli/bin/cli.js')
const CONFIG = join(__dirname, '..', '..', '..', '..', 'redocly.yaml')

/** A plugin whose routes say nothing about themselves: plain router routes, no summary, no schema. */
const PLAIN = `import { PluginBase } from 'server-manager'
import { allowPublic, defineRoute, Router, z } from 'server-manager/web'
export default class Plain extends PluginBase {
  static version = '1.0.0'
  getRouters() {
    const router = new Router({ prefix: '/plain' })
    router.get('/json', (ctx) => { ctx.body = { ok: true } })
    router.get('/open', allowPublic, (ctx) => { ctx.body = 'text' })
    router.post('/echo', (ctx) => { ctx.body = { got: ctx.request.body } })
    defineRoute(router, { method: 'post', path: '/typed/:id', access: 'moderator', body: z.object({ n: z.number() }) },
      (_ctx, { params, body }) => ({ id: params.id, n: body.n }))
    return [router]
  }
}
`

function operations(document: Json): Operation[] {
  return Object.entries(document.paths as Record<string, Record<string, Json>>).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, spec]) => ({ method: method.toUpperCase(), path, spec })),
  )
}

/** The document's `$ref`s inlined, so a schema can be read on its own. */
function deref(document: Json, node: Json): Json {
  if (Array.isArray(node)) return node.map((n) => deref(document, n))
  if (!node || typeof node !== 'object') return node
  if (typeof node.$ref === 'string') {
    const target = node.$ref
      .replace(/^#\//, '')
      .split('/')
      .reduce((at: Json, key: string) => at?.[key], document)
    return deref(document, target)
  }
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, deref(document, v)]))
}

interface Answer {
  readonly status: number
  readonly type: string
  readonly json: unknown
}

/** One request; an event stream is read up to its headers only. */
async function call(
  url: string,
  options: { method: string; token?: string; accept?: string; body?: unknown; raw?: string },
): Promise<Answer> {
  const headers: Record<string, string> = { Accept: options.accept ?? 'application/json' }
  if (options.token) headers.Authorization = `Bearer ${options.token}`
  let body: string | undefined
  if (options.raw !== undefined || options.body !== undefined) {
    body = options.raw ?? JSON.stringify(options.body)
    headers['Content-Type'] = 'application/json'
  }
  const abort = new AbortController()
  const res = await fetch(url, { method: options.method, headers, body, redirect: 'manual', signal: abort.signal })
  const type = (res.headers.get('content-type') ?? '').split(';')[0]?.trim() ?? ''
  if (type === 'text/event-stream') {
    abort.abort()
    return { status: res.status, type, json: undefined }
  }
  return { status: res.status, type, json: parseJson(await res.text()) }
}

/**
 * Checks answers against the document: the status is documented for the operation, and so is
 * the content type (a 3xx only needs its status); a JSON body matches the documented schema.
 */
class Walk {
  readonly problems = new Set<string>()
  readonly seen = new Set<string>()
  readonly #schemas = new Map<object, z.ZodType>()

  constructor(readonly document: Json) {}

  check(op: Operation, what: string, answer: Answer): void {
    const where = `${op.method} ${op.path} (${what})`
    this.seen.add(`${op.method} ${op.path} ${answer.status} ${answer.type}`)
    const response = op.spec.responses?.[String(answer.status)]
    if (!response) {
      this.problems.add(`${where}: status ${answer.status} is not documented`)
      return
    }
    if (answer.status >= 300 && answer.status < 400) return
    const content = response.content ?? {}
    const media = content[answer.type] ?? content['*/*']
    if (!media) {
      this.problems.add(`${where}: ${answer.status} ${answer.type} is not documented (${Object.keys(content)})`)
      return
    }
    if (answer.type !== 'application/json' || !media.schema) return
    const schema = deref(this.document, media.schema)
    let zod = this.#schemas.get(media.schema)
    if (!zod) {
      zod = z.fromJSONSchema(schema)
      this.#schemas.set(media.schema, zod)
    }
    const parsed = zod.safeParse(answer.json)
    if (!parsed.success)
      this.problems.add(
        `${where}: the ${answer.status} body does not match the document: ${parsed.error.issues
          .slice(0, 3)
          .map((i) => `${i.path.join('.')}: ${i.message}`)
          .join('; ')} in ${JSON.stringify(answer.json).slice(0, 300)}`,
      )
  }
}

/** The file manager's routes, each to a success and to the refusals of its own work. */
async function fileCalls(
  url: string,
  token: string,
  admin: (method: string, path: string, url: string, body?: unknown) => Promise<Answer>,
  checkUpload: (what: string, answer: Answer) => void,
): Promise<void> {
  const files = '/api/servers/{name}/files'
  const at = '/api/servers/alpha/files'
  await admin('GET', files, `${at}?path=server.properties`)
  await admin('GET', files, `${at}?path=..`)
  const read = await admin('GET', `${files}/text`, `${at}/text?path=server.properties`)
  await admin('PUT', `${files}/text`, `${at}/text`, {
    path: 'server.properties',
    text: 'level-name=Bedrock level\n',
    expected_hash: (read.json as Json).hash,
  })
  await admin('PUT', `${files}/text`, `${at}/text`, { path: 'server.properties', text: '', expected_hash: 'stale' })
  await admin('PUT', `${files}/text`, `${at}/text`, { path: 'walk.txt', text: 'walk\n' })
  await admin('POST', `${files}/mkdir`, `${at}/mkdir`, { path: 'walk' })
  await admin('POST', `${files}/mkdir`, `${at}/mkdir`, { path: 'walk' })
  await admin('POST', `${files}/rename`, `${at}/rename`, { path: 'walk.txt', to: 'walk/walk.txt' })
  await admin('POST', `${files}/rename`, `${at}/rename`, { path: 'gone.txt', to: 'walk/walk2.txt' })
  await admin('DELETE', files, `${at}?path=.`)
  for (const overwrite of [false, true]) {
    const fields: Record<string, string> = overwrite
      ? { path: 'walk/walk.txt', overwrite: 'true' }
      : { path: 'walk/walk.txt' }
    const reply = await postFile(`${url}${at}/upload`, token, fields, new Blob(['uploaded\n']))
    const type = (reply.headers.get('content-type') ?? '').split(';')[0]?.trim() ?? ''
    checkUpload(`admin: upload, overwrite ${overwrite}`, { status: reply.status, type, json: reply.json })
  }
  const download = await call(`${url}${at}/download?path=walk%2Fwalk.txt`, { method: 'GET', token, accept: '*/*' })
  expect([download.status, download.type]).to.deep.equal([200, 'application/octet-stream'])
  await admin('DELETE', files, `${at}?path=walk`)
}

describe('services/web: the OpenAPI document is the API', function () {
  this.timeout(120_000)
  let web: WebSetup | undefined
  afterEach(async () => {
    await web?.manager.stop()
    web = undefined
  })

  const withPlugins = () =>
    startWeb({
      files: { 'plain.ts': PLAIN },
      settings: { 'plugins.dev_examples': true },
      enable: ['plain', 'web_example', 'native_page_example'],
    })

  it('passes redocly lint (the repository config) with no error and no warning, plugin routes included', async () => {
    web = await withPlugins()
    const document = (await call(`${web.url}/api/openapi.json`, { method: 'GET' })).json as Json
    expect(document.servers).to.deep.equal([{ url: '/', description: 'this manager' }])
    const file = join(tempDir(), 'openapi.json')
    writeFileSync(file, JSON.stringify(document))
    const lint = await run(process.execPath, [REDOCLY, 'lint', '--config', CONFIG, '--format', 'json', file], {
      timeoutMs: 60_000,
      env: { REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    })
    const report = JSON.parse(lint.stdout.slice(lint.stdout.indexOf('{'))) as {
      problems: { severity: string; ruleId: string; message: string; location: { pointer: string }[] }[]
    }
    const problems = report.problems.map((p) => `${p.severity} ${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`)
    expect(problems, problems.join('\n')).to.deep.equal([])
    expect(lint.code, lint.stderr).to.equal(0)
    for (const op of operations(document)) {
      expect(op.spec.summary, `${op.method} ${op.path}`).to.be.a('string').and.not.empty
      expect(op.path, 'no trailing slash').to.match(/^\/$|[^/]$/)
    }
  })

  it('documents every status and content type each route answers, to anyone, each role and bad input', async () => {
    web = await withPlugins()
    const setup = web
    const serverDir = fakeBedrockDir()
    mkdirSync(join(serverDir, 'worlds', 'Bedrock level', 'db'), { recursive: true })
    writeFileSync(join(serverDir, 'worlds', 'Bedrock level', 'level.dat'), 'level')
    await setup.manager.bus.request('servers:add', { name: 'alpha', dir: serverDir })
    const backup = await setup.manager.bus.request('servers:backup', { name: 'alpha', type: 'world' })
    const task = { taskId: setup.manager.registry.resolve(TASKS).run('walk', async () => 'done').id }
    const document = (await call(`${setup.url}/api/openapi.json`, { method: 'GET' })).json as Json
    const walk = new Walk(document)
    const tokens: Record<string, string | undefined> = {
      anonymous: undefined,
      user: await setup.login('u', 'user'),
      moderator: await setup.login('m', 'moderator'),
      admin: setup.admin,
    }
    // Path parameters: ones that exist (GETs only: no write touches real records here) and ones that do not.
    const real: Record<string, string> = {
      name: 'alpha',
      file: backup.files[0]?.file ?? 'none',
      id: task.taskId,
      key: 'web.port',
      username: 'u',
    }
    const fill = (path: string, values: Record<string, string> | undefined) =>
      path.replace(/\{(\w+)\}/g, (_, name: string) =>
        encodeURIComponent(
          values?.[name] ?? (name === 'name' && path.startsWith('/api/plugins') ? 'plain' : 'zz-none'),
        ),
      )
    // Signing out last: it may end the caller's session.
    const ops = operations(document).sort(
      (a, b) => Number(a.path === '/auth/logout') - Number(b.path === '/auth/logout'),
    )
    for (const op of ops) {
      const body = ['POST', 'PUT', 'PATCH'].includes(op.method)
      for (const values of op.method === 'GET' ? [real, undefined] : [undefined]) {
        const url = `${setup.url}${fill(op.path, values)}`
        for (const [caller, token] of Object.entries(tokens)) {
          const accepts = op.method === 'GET' ? ['application/json', 'text/html'] : ['application/json']
          for (const accept of accepts)
            walk.check(
              op,
              `${caller}, ${accept}`,
              await call(url, { method: op.method, token, accept, body: body ? {} : undefined }),
            )
          if (body) walk.check(op, `${caller}, bad JSON`, await call(url, { method: op.method, token, raw: '{"a": ' }))
        }
      }
    }
    // Signing out revoked the walk's admin session: the calls below sign in again.
    tokens.admin = await signIn(setup.url, 'admin', ADMIN_PASSWORD)
    // Calls that succeed, and the conflicts and limits they lead to, checked the same way.
    const find = (method: string, path: string) => {
      const op = ops.find((o) => o.method === method && o.path === path)
      if (!op) throw new Error(`${method} ${path} is not in the document`)
      return op
    }
    const admin = async (method: string, path: string, url: string, body?: unknown) => {
      const answer = await call(`${setup.url}${url}`, { method, token: tokens.admin, body })
      walk.check(find(method, path), `admin: ${url}`, answer)
      return answer
    }
    await admin('PUT', '/api/settings/{key}', '/api/settings/custom.walk', { value: 1 })
    await admin('DELETE', '/api/settings/{key}', '/api/settings/custom.walk')
    await admin('PUT', '/api/settings/{key}', '/api/settings/nosuch.key', { value: 1 })
    await admin('POST', '/api/users', '/api/users', { username: 'walker', password: 'walker password', role: 'user' })
    await admin('POST', '/api/users', '/api/users', { username: 'walker', password: 'walker password', role: 'user' })
    await admin('PUT', '/api/users/{username}/role', '/api/users/walker/role', { role: 'moderator' })
    await admin('PUT', '/api/users/{username}/role', '/api/users/admin/role', { role: 'user' })
    await admin('DELETE', '/api/users/{username}', '/api/users/walker')
    const created = await admin('POST', '/api/tokens', '/api/tokens', { name: 'walk', role: 'user' })
    await admin('DELETE', '/api/tokens/{id}', `/api/tokens/${(created.json as Json)?.record?.id}`)
    await admin('POST', '/api/plugins/trigger_event', '/api/plugins/trigger_event', { event_name: 'walk:ping' })
    await admin('POST', '/api/plugins/trigger_event', '/api/plugins/trigger_event', {
      event_name: 'walk:ping',
      payload: { big: 'x'.repeat(1_100_000) },
    })
    await admin('PUT', '/api/plugins/reload', '/api/plugins/reload', {})
    await admin('POST', '/api/plugins/{name}', '/api/plugins/plain', { enabled: true })
    const schedule = await admin('POST', '/api/servers/{name}/schedules', '/api/servers/alpha/schedules', {
      cron: '0 3 * * *',
      action: 'backup',
    })
    await admin('DELETE', '/api/schedules/{id}', `/api/schedules/${(schedule.json as Json)?.schedule?.id}`)
    await admin('PUT', '/api/servers/{name}/properties', '/api/servers/alpha/properties', {
      properties: { 'level-name': 'Bedrock level' },
    })
    await admin('POST', '/api/servers/{name}/command', '/api/servers/alpha/command', { command: 'list' })
    await fileCalls(setup.url, tokens.admin as string, admin, (what, answer) =>
      walk.check(find('POST', '/api/servers/{name}/files/upload'), what, answer),
    )
    // Stopped: the allowlist file is edited; an operator needs an xuid nobody has seen.
    await admin('POST', '/api/servers/{name}/allowlist', '/api/servers/alpha/allowlist', { player: 'Steve' })
    await admin('DELETE', '/api/servers/{name}/allowlist/{player}', '/api/servers/alpha/allowlist/Steve')
    await admin('POST', '/api/servers/{name}/operators', '/api/servers/alpha/operators', { player: 'Steve' })
    // Running: a command it knows (200) and one it refuses (422 with its reply lines).
    afterItsUser(() => killServers(setup.dataDir))
    await setup.manager.bus.request('servers:start', { name: 'alpha' })
    await admin('POST', '/api/servers/{name}/command', '/api/servers/alpha/command', { command: 'list' })
    const refused = await admin('POST', '/api/servers/{name}/command', '/api/servers/alpha/command', {
      command: 'nosuch',
    })
    expect(refused.status).to.equal(422)
    await setup.manager.bus.request('servers:stop', { name: 'alpha' })
    await admin('POST', '/api/tasks/{id}/cancel', `/api/tasks/${task.taskId}/cancel`)
    await admin('POST', '/api/setup/create-first-user', '/api/setup/create-first-user', {
      username: 'late',
      password: 'late password',
    })
    await admin('POST', '/plain/typed/{id}', '/plain/typed/7', { n: 1 })
    for (let i = 0; i < 12; i++)
      walk.check(
        find('POST', '/auth/token'),
        'wrong password',
        await call(`${setup.url}/auth/token`, { method: 'POST', body: { username: 'u', password: 'wrong' } }),
      )

    // The download is the documented type (a world backup is a .mcworld: still a zip).
    const download = await call(`${setup.url}/api/servers/alpha/backups/${encodeURIComponent(real.file as string)}`, {
      method: 'GET',
      token: tokens.admin,
      accept: '*/*',
    })
    expect(download.status).to.equal(200)
    expect(download.type).to.equal('application/zip')
    expect(Object.keys(find('GET', '/api/servers/{name}/backups/{file}').spec.responses['200'].content)).to.deep.equal([
      'application/zip',
    ])

    // Before first-run setup every page redirects to it: documented too.
    const fresh = await startWeb({ setup: false })
    try {
      for (const op of ops.filter((o) => o.method === 'GET' && !o.path.startsWith('/plain')))
        for (const accept of ['application/json', 'text/html'])
          walk.check(
            op,
            `before setup, ${accept}`,
            await call(`${fresh.url}${fill(op.path, undefined)}`, {
              method: 'GET',
              accept,
            }),
          )
    } finally {
      await fresh.manager.stop()
    }

    expect([...walk.problems], [...walk.problems].join('\n')).to.deep.equal([])
    // The walk reached what it is meant to check, not only 401s.
    for (const seen of [
      'GET /api/servers/{name} 200 application/json',
      'GET /api/servers/{name} 404 application/json',
      'POST /api/servers/{name}/start 404 application/json',
      'POST /api/users 409 application/json',
      'POST /auth/token 429 application/json',
      'POST /api/users 400 application/json',
      'POST /api/plugins/trigger_event 413 application/json',
      'GET /servers/{name} 404 text/html',
      'GET /plain/json 200 application/json',
      'GET /api/events/stream 200 text/event-stream',
      'PUT /api/servers/{name}/files/text 409 application/json',
      'POST /api/servers/{name}/files/upload 201 application/json',
      'POST /api/servers/{name}/files/upload 409 application/json',
      'POST /api/servers/{name}/allowlist 200 application/json',
      'POST /api/servers/{name}/operators 409 application/json',
    ])
      expect([...walk.seen], seen).to.include(seen)
    expect(
      [...walk.seen].some((seen) => seen.startsWith('GET / 302 ')),
      'the setup redirect',
    ).to.equal(true)
  })
})
