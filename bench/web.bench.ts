import { execFile, execFileSync, spawn } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { get } from 'node:http'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { createManager, type Kernel, silentLogger } from '../manager'
import { median } from './harness'
import { fakeServer } from './servers.bench'

const exec = promisify(execFile)
const AUTOCANNON = require.resolve('autocannon/autocannon.js')
const CONNECTIONS = 50

/** A listener for the trigger and a JSON GET route, as a user plugin would have them. */
const BENCH_PLUGIN = `import { PluginBase } from 'server-manager'
import { allowPublic, defineRoute, requireAdmin, Router, z } from 'server-manager/web'
export default class BenchPlugin extends PluginBase {
  static version = '1.0.0'
  override async onLoad() {
    await this.api.listenForEvent('bench:ping', () => {})
  }
  getRouters() {
    const router = new Router({ prefix: '/benchplugin' })
    router.get('/json', (ctx) => { ctx.body = HANDLER_BODY })
    router.get('/open', allowPublic, (ctx) => { ctx.body = HANDLER_BODY })
    router.post('/post', allowPublic, (ctx) => { ctx.body = { status: 'success', got: ctx.request.body.event_name } })
    router.post('/post_admin', requireAdmin, (ctx) => { ctx.body = { status: 'success', got: ctx.request.body.event_name } })
    defineRoute(router, { method: 'post', path: '/post_zod', access: 'admin', body: z.object({ event_name: z.string().min(1).max(200), payload: z.record(z.string(), z.unknown()).nullable().optional() }) },
      (_ctx, { body }) => ({ status: 'success', got: body.event_name }))
    defineRoute(router, { method: 'post', path: '/post_send', access: 'admin', body: z.object({ event_name: z.string().min(1).max(200), payload: z.record(z.string(), z.unknown()).nullable().optional() }) },
      async (_ctx, { body }) => ({ status: 'success', details: await this.api.sendEvent(body.event_name, body.payload ?? {}) }))
    return [router]
  }
}
`
const HANDLER_BODY = "{ status: 'success', data: { servers: ['lobby', 'survival'], uptime: 12345, ok: true } }"
const TRIGGER_BODY = JSON.stringify({ event_name: 'bench:ping', payload: { player: 'Steve', x: 1, y: 64, z: -3 } })

export interface LoadResult {
  readonly rps: number
  /** Requests answered in the run. */
  readonly total: number
  readonly p99Ms: number
  readonly p50Ms: number
  readonly errors: number
  readonly non2xx: number
}

/** autocannon in its own process, pinned to the other core when taskset exists (the server keeps this one). */
async function load(
  url: string,
  options: { method?: string; body?: string; token?: string; seconds: number; amount?: number },
): Promise<LoadResult> {
  // `amount` (quick mode) sends that many requests in all instead of loading for `seconds`.
  const length = options.amount ? ['-a', String(options.amount)] : ['-d', String(options.seconds)]
  const args = [AUTOCANNON, '-c', String(CONNECTIONS), ...length, '-j']
  if (options.method) args.push('-m', options.method)
  if (options.body) args.push('-b', options.body, '-H', 'content-type=application/json')
  if (options.token) args.push('-H', `authorization=Bearer ${options.token}`)
  args.push(url)
  const [file, argv] = onCore(1, args)
  const { stdout } = await exec(file, argv, { maxBuffer: 64 * 1024 * 1024 })
  const r = JSON.parse(stdout) as {
    requests: { average: number; total: number }
    latency: { p99: number; p50: number }
    errors: number
    non2xx: number
  }
  return {
    rps: r.requests.average,
    total: r.requests.total,
    p99Ms: r.latency.p99,
    p50Ms: r.latency.p50,
    errors: r.errors,
    non2xx: r.non2xx,
  }
}

/** `node <args>` as a file and its arguments, pinned to `core` where taskset exists. */
function onCore(core: number, args: readonly string[]): [string, string[]] {
  return hasTaskset() ? ['taskset', ['-c', String(core), process.execPath, ...args]] : [process.execPath, [...args]]
}

let taskset: boolean | undefined
function hasTaskset(): boolean {
  if (taskset === undefined) {
    try {
      execFileSync('taskset', ['-p', '-c', '0', String(process.pid)], { stdio: 'ignore' })
      taskset = true
    } catch {
      taskset = false
    }
  }
  return taskset
}

/**
 * The bare baseline (bench/bare-koa-process.ts) in a process of its own, pinned to this process's
 * core (hasTaskset pinned it; the manager under test runs here, autocannon on the other core):
 * the same handlers, and `json` (a path and its body) answered by a GET route too.
 */
async function bareKoa(
  dir: string,
  json?: { path: string; body: unknown },
): Promise<{ url: string; close(): Promise<void> }> {
  const args = [join(__dirname, 'bare-koa-process.js')]
  if (json) {
    const file = join(dir, `bare-koa-${Date.now()}.json`)
    writeFileSync(file, JSON.stringify(json.body))
    args.push(file, json.path)
  }
  const child = spawn(...onCore(0, args), { stdio: ['ignore', 'pipe', 'inherit'] })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.once('data', (chunk: Buffer) => resolve(String(chunk).trim()))
    child.once('exit', (code) => reject(new Error(`the bare Koa process exited ${code} before it listened`)))
  })
  return {
    url,
    // Gone before the next benchmark starts (its load, its port).
    async close() {
      child.kill('SIGTERM')
      await exited
    },
  }
}

async function ourManager(
  dir: string,
  servers = 0,
  isolation: 'thread' | 'none' = 'thread',
): Promise<{ manager: Kernel; url: string; token: string }> {
  const dataDir = join(dir, `web-${isolation}-${Date.now()}`)
  mkdirSync(join(dataDir, 'plugins'), { recursive: true })
  writeFileSync(join(dataDir, 'plugins', 'benchplugin.ts'), BENCH_PLUGIN.replaceAll('HANDLER_BODY', HANDLER_BODY))
  return signedInManager(dataDir, async (bus) => {
    await bus.request('settings:set', { key: 'plugins.isolation', value: isolation })
    await bus.request('plugins:set_enabled', { name: 'benchplugin', enabled: true })
    // Game directories live beside the data directory: a server inside it is refused.
    for (let i = 0; i < servers; i++)
      await bus.request('servers:add', { name: `s${i}`, dir: fakeServer(join(`${dataDir}-servers`, `s${i}`)) })
  })
}

/**
 * A manager in this process on `dataDir` (its web server on a free loopback port, no default
 * plugins), set up by `setUp`, with an admin signed in: its URL and the admin's session token.
 */
export async function signedInManager(
  dataDir: string,
  setUp: (bus: Kernel['bus']) => Promise<void>,
): Promise<{ manager: Kernel; url: string; token: string }> {
  // The manager `npm start` runs (its bridge, and from manager:started its live follow of servers).
  const manager = createManager({
    dataDir,
    logger: silentLogger,
    daemon: true,
    web: { host: '127.0.0.1', port: 0 },
    defaultPlugins: false,
  })
  await manager.start()
  try {
    await setUp(manager.bus)
    await manager.bus.request('auth:create_user', { username: 'bench', password: 'bench password', firstAdmin: true })
    const session = await manager.bus.request('auth:login', { username: 'bench', password: 'bench password' })
    const url = (await manager.bus.request('web:status', {})).url as string
    return { manager, url, token: session.accessToken }
  } catch (error) {
    // A half-built manager would keep the benchmark process alive after it failed.
    await manager.stop()
    throw error
  }
}

/**
 * Requests per second at 50 connections, ours vs bare Koa, in one run: the authenticated
 * trigger_event (JWT checked, body validated, listener called in the plugin's thread, fact
 * recorded) against a bare route parsing the same body; and a plugin's JSON GET route (signed-in
 * user) against the same handler in bare Koa, the plugin in its own thread (the default) and in
 * the manager's (plugins.isolation none).
 */
export async function webThroughputBench(dir: string, seconds = 8, quick = false) {
  const amount = quick ? CONNECTIONS : undefined
  const ours = await ourManager(dir)
  const bare = await bareKoa(dir).catch(async (error: unknown) => {
    await ours.manager.stop()
    throw error
  })
  try {
    const triggerOurs = `${ours.url}/api/plugins/trigger_event`
    const triggerBare = `${bare.url}/api/plugins/trigger_event`
    // Warm up both (JIT, SQLite pages, connection pools), then measure each once, alternating.
    const post = { method: 'POST', body: TRIGGER_BODY, token: ours.token, amount }
    // Quick mode (a fixed number of requests) measures nothing, so it needs no warm-up.
    const warm = quick ? async () => {} : load
    await warm(triggerOurs, { ...post, seconds: 2 })
    // The bare server gets the very same requests, Authorization header included (it ignores it).
    await warm(triggerBare, { ...post, seconds: 2 })
    const trigger = {
      bare: await load(triggerBare, { ...post, seconds }),
      ours: await load(triggerOurs, { ...post, seconds }),
    }
    const facts = (await ours.manager.bus.request('events:head', {})).seq
    const get = { token: ours.token, amount }
    await warm(`${ours.url}/benchplugin/json`, { ...get, seconds: 2 })
    await warm(`${bare.url}/benchplugin/json`, { ...get, seconds: 2 })
    const route = {
      bare: await load(`${bare.url}/benchplugin/json`, { ...get, seconds }),
      ours: await load(`${ours.url}/benchplugin/json`, { ...get, seconds }),
    }
    const inProcess = await ourManager(dir, 0, 'none')
    try {
      const local = { token: inProcess.token, amount }
      await warm(`${inProcess.url}/benchplugin/json`, { ...local, seconds: 2 })
      return {
        trigger,
        route: { ...route, inProcess: await load(`${inProcess.url}/benchplugin/json`, { ...local, seconds }) },
        facts,
      }
    } finally {
      await inProcess.manager.stop()
    }
  } finally {
    await bare.close()
    await ours.manager.stop()
  }
}

/**
 * `GET /api/servers` with 50 (`servers`) registered servers, signed in as an admin, at 50
 * connections, against a bare Koa in a process of its own answering the very same JSON (captured
 * from ours first): the list is read from memory (the projections' views) and each server's status
 * from its run files, never from a supervisor that is not there.
 */
export async function serversApiBench(dir: string, servers = 50, seconds = 8, quick = false) {
  const amount = quick ? CONNECTIONS : undefined
  const ours = await ourManager(dir, servers)
  let bare: { url: string; close(): Promise<void> } | undefined
  try {
    const url = `${ours.url}/api/servers`
    const reply = await fetch(url, { headers: { authorization: `Bearer ${ours.token}` } })
    if (reply.status !== 200) throw new Error(`GET /api/servers answered ${reply.status}: ${await reply.text()}`)
    const body = (await reply.json()) as { servers: unknown[] }
    if (body.servers.length !== servers)
      throw new Error(`GET /api/servers listed ${body.servers.length} servers, not ${servers}`)
    bare = await bareKoa(dir, { path: '/api/servers', body })
    const bareUrl = `${bare.url}/api/servers`
    const get = { token: ours.token, amount }
    if (!quick) {
      await load(bareUrl, { ...get, seconds: 2 })
      await load(url, { ...get, seconds: 2 })
    }
    return {
      servers,
      bytes: JSON.stringify(body).length,
      bare: await load(bareUrl, { ...get, seconds }),
      ours: await load(url, { ...get, seconds }),
    }
  } finally {
    await bare?.close()
    await ours.manager.stop()
  }
}

/**
 * Time to first byte of the dashboard with 50 (`servers`) servers (median of 20, `requests`), and a
 * complete render in Chromium (median of 10, `renders`), each after one warm-up.
 */
export async function dashboardBench(dir: string, servers = 50, requests = 20, renders = 10) {
  const ours = await ourManager(dir, servers)
  try {
    const ttfb: number[] = []
    const whole: number[] = []
    for (let i = 0; i <= requests; i++) {
      const began = performance.now()
      await new Promise<void>((resolve, reject) => {
        get(`${ours.url}/`, { headers: { Authorization: `Bearer ${ours.token}`, Accept: 'text/html' } }, (res) => {
          ttfb.push(performance.now() - began)
          res.resume()
          res.on('end', () => {
            whole.push(performance.now() - began)
            resolve()
          })
        }).on('error', reject)
      })
    }
    ttfb.shift()
    whole.shift()
    const { launchBrowser } = require('../test/helpers/browser') as typeof import('../test/helpers/browser')
    const browser = await launchBrowser()
    const loads: number[] = []
    const firstBytes: number[] = []
    const drawn: number[] = []
    const live: number[] = []
    let rows = 0
    try {
      const context = await browser.newContext({ extraHTTPHeaders: { Authorization: `Bearer ${ours.token}` } })
      const page = await context.newPage()
      for (let i = 0; i <= renders; i++) {
        await page.goto(`${ours.url}/`, { waitUntil: 'load' })
        const timing = await page.evaluate(() => {
          const [nav] = performance.getEntriesByType('navigation') as PerformanceNavigationTiming[]
          return { ttfb: nav?.responseStart ?? 0, load: nav?.loadEventEnd ?? 0 }
        })
        // The resource figures and charts: their series read from the API once the live stream is open.
        const mark = await page.waitForFunction(() => performance.getEntriesByName('sm:metrics-loaded')[0]?.startTime)
        if (i > 0) {
          firstBytes.push(timing.ttfb)
          loads.push(timing.load)
          drawn.push(Number(await mark.jsonValue()))
        }
        rows = await page.locator('tr[data-server]').count()
      }
      // A live update: a sample of every server (and the machine) emitted at once, until the last row shows it.
      for (let round = 0; round <= renders; round++) {
        const cpu = 10 + round
        const began = Date.now()
        for (let i = 0; i < servers; i++)
          void ours.manager.bus.emit('servers:sampled', {
            serverName: `s${i}`,
            sample: { t: began, cpu, rss: 64 * 1048576, uptime_s: 60 },
          })
        void ours.manager.bus.emit('metrics:host_sampled', {
          sample: { t: began, cpu, mem_used: 1 << 30, mem_total: 4 << 30, disk_used: 1 << 30, disk_total: 8 << 30 },
        })
        const shown = await page.waitForFunction(
          ({ text, count }) => {
            const cells = [...document.querySelectorAll('[data-row-metrics]')]
            return cells.length === count && cells.every((cell) => cell.textContent?.startsWith(text)) && Date.now()
          },
          { text: `${cpu}% CPU`, count: servers },
        )
        if (round > 0) live.push(Number(await shown.jsonValue()) - began)
      }
    } finally {
      await browser.close()
    }
    return {
      ttfbMs: median(ttfb),
      bodyMs: median(whole),
      browserTtfbMs: median(firstBytes),
      browserLoadMs: median(loads),
      chartsMs: median(drawn),
      liveMs: median(live),
      rows,
    }
  } finally {
    await ours.manager.stop()
  }
}

/** The routes `__profile` can load, by mode: the trigger, the plugin's GET routes, and its POST routes layer by layer. */
const PROFILE_ROUTES: Record<string, { path: string; post: boolean; signedIn: boolean }> = {
  trigger: { path: '/api/plugins/trigger_event', post: true, signedIn: true },
  route: { path: '/benchplugin/json', post: false, signedIn: true },
  open: { path: '/benchplugin/open', post: false, signedIn: false },
  ...Object.fromEntries(
    ['post', 'post_admin', 'post_zod', 'post_send'].map((mode) => [
      mode,
      { path: `/benchplugin/${mode}`, post: true, signedIn: true },
    ]),
  ),
}

/** For profiling one side by hand: `node -e` with --cpu-prof (not part of npm run bench). */
export async function __profile(dir: string, mode: string) {
  const ours = await ourManager(dir)
  try {
    if (mode === 'ab') {
      const bare = await bareKoa(dir)
      const out: Record<string, number> = {}
      for (const [name, url, token] of [
        ['bare', `${bare.url}/benchplugin/json`, undefined],
        ['core public /api/info', `${ours.url}/api/info`, undefined],
        ['core /auth/me', `${ours.url}/auth/me`, ours.token],
        ['plugin public', `${ours.url}/benchplugin/open`, undefined],
        ['plugin signed in', `${ours.url}/benchplugin/json`, ours.token],
        ['bare again', `${bare.url}/benchplugin/json`, undefined],
      ] as const) {
        await load(url, { token, seconds: 1 })
        out[name] = Math.round((await load(url, { token, seconds: 4 })).rps)
      }
      await bare.close()
      return out
    }
    if (mode === 'work') {
      // The trigger without HTTP: 50 concurrent callers for 4 s, CPU per call (thread-pool included).
      const payload = JSON.parse(TRIGGER_BODY).payload as Record<string, unknown>
      let calls = 0
      const cpu = process.cpuUsage()
      const end = performance.now() + 4000
      await Promise.all(
        Array.from({ length: CONNECTIONS }, async () => {
          for (; performance.now() < end; calls++)
            await ours.manager.bus.request('plugins:trigger_event', { event: 'bench:ping', payload })
        }),
      )
      const used = process.cpuUsage(cpu)
      return { callsPerSecond: Math.round(calls / 4), cpuMicrosPerCall: (used.user + used.system) / calls }
    }
    // The HTTP modes: the load, and this process's CPU (thread-pool and kernel time included) per request.
    const target = PROFILE_ROUTES[mode]
    if (!target) throw new Error(`unknown mode '${mode}': ab, work, or ${Object.keys(PROFILE_ROUTES).join(', ')}`)
    const cpu = process.cpuUsage()
    const result = await load(`${ours.url}${target.path}`, {
      ...(target.post ? { method: 'POST', body: TRIGGER_BODY } : {}),
      token: target.signedIn ? ours.token : undefined,
      seconds: 6,
    })
    const used = process.cpuUsage(cpu)
    return { ...result, cpuMicrosPerRequest: (used.user + used.system) / result.total }
  } finally {
    await ours.manager.stop()
  }
}
