import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { get } from 'node:http'
import { join } from 'node:path'
import { EventEmitter2 } from 'eventemitter2'
import { Bus, BusScope, builtinServices, createKernel, createManager, silentLogger } from '../manager'
import { discover } from '../services/plugins/discovery'
import { eventIdentifier } from '../services/plugins/identity'
import { LoadedPlugin, type RunningPlugin } from '../services/plugins/loaded-plugin'
import { type PluginDefinition, PluginImporter } from '../services/plugins/plugin-module'
import { HostPool } from '../services/plugins/thread/plugin-host'
import { ThreadedPlugin } from '../services/plugins/thread/threaded-plugin'
import { startManagerProcess, stopProcess } from './daemon.bench'
import { type Comparison, compare, median, p99 } from './harness'
import { signedInManager } from './web.bench'

const source = (i: number) => `import { type AfterPayload, type BeforePayload, PluginBase } from 'server-manager'

enum Mode { Quiet, Loud }

/** Generated plugin number ${i}. */
export default class Generated${i} extends PluginBase<Generated${i}> {
  static version = '1.0.${i}'
  private mode: Mode = Mode.Quiet
  private seen = 0

  beforeSettingUpdate({ key }: BeforePayload<'setting_update'>) {
    if (this.mode === Mode.Loud) this.logger.info(key)
    this.seen++
  }

  afterSettingUpdate({ result }: AfterPayload<'setting_update'>) {
    if (result.status !== 'success') this.seen--
  }
}
`

// The same plugin as plain CommonJS, for the bare-require baseline.
const compiled = (i: number) => `"use strict";
const { PluginBase } = require(${JSON.stringify(join(__dirname, '..', 'index.js'))});
var Mode; (function (Mode) { Mode[Mode.Quiet = 0] = 'Quiet'; Mode[Mode.Loud = 1] = 'Loud' })(Mode || (Mode = {}));
class Generated${i} extends PluginBase {
  static version = '1.0.${i}';
  mode = Mode.Quiet; seen = 0;
  beforeSettingUpdate({ key }) { if (this.mode === Mode.Loud) this.logger.info(key); this.seen++ }
  afterSettingUpdate({ result }) { if (result.status !== 'success') this.seen-- }
}
exports.default = Generated${i};
`

export interface LoadResult {
  readonly plugins: number
  readonly coldMsPerPlugin: number
  readonly warmMsPerPlugin: number
  readonly bareRequireMsPerPlugin: number
}

/**
 * Loads 100 generated TypeScript plugins through the real service (`plugins:reload`: discover,
 * import with jiti, validate, instantiate, bind hooks, onLoad), with jiti's transpile cache
 * emptied (cold) and kept (warm), against `require` + `new` of the same code precompiled to JS.
 */
export async function loadBench(dir: string, count = 100, rounds = 5): Promise<LoadResult> {
  const dataDir = join(dir, 'load')
  const pluginsDir = join(dataDir, 'plugins')
  const bareDir = join(dir, 'bare-plugins')
  mkdirSync(pluginsDir, { recursive: true })
  mkdirSync(bareDir, { recursive: true })
  for (let i = 0; i < count; i++) {
    writeFileSync(join(pluginsDir, `generated_${i}.ts`), source(i))
    writeFileSync(join(bareDir, `generated_${i}.js`), compiled(i))
  }
  // Without the shipped default plugins: the figure is per generated plugin, whatever ships.
  const manager = createManager({ dataDir, logger: silentLogger, defaultPlugins: false })
  await manager.start()
  const names = Array.from({ length: count }, (_, i) => `generated_${i}`)
  try {
    for (let i = 0; i < count; i++)
      await manager.bus.request('plugins:set_enabled', { name: `generated_${i}`, enabled: true })
    const jitiCache = join(dataDir, 'cache', 'jiti')
    const reload = async (cold: boolean) => {
      if (cold) rmSync(jitiCache, { recursive: true, force: true })
      const report = await manager.bus.request('plugins:reload', {})
      const loaded = new Set(report.loaded)
      if (report.loaded.length !== count || names.some((name) => !loaded.has(name))) {
        const states = (await manager.bus.request('plugins:list', {})).map(
          (r) => `${r.name}:${r.state}:${r.error?.message ?? ''}`,
        )
        const unexpected = states.filter((state) => !state.startsWith('generated_') || !state.includes(':loaded:'))
        throw new Error(`loaded ${report.loaded.length} of ${count}: ${unexpected.slice(0, 3).join(' | ')}`)
      }
      return report.ms
    }
    const cold: number[] = []
    const warm: number[] = []
    for (let round = 0; round < rounds; round++) {
      cold.push(await reload(true))
      warm.push(await reload(false))
    }
    const bare: number[] = []
    for (let round = 0; round < rounds; round++) {
      const began = performance.now()
      for (let i = 0; i < count; i++) {
        const file = join(bareDir, `generated_${i}.js`)
        delete require.cache[file]
        const Plugin = require(file).default
        new Plugin({ name: `generated_${i}`, version: Plugin.version, logger: silentLogger, api: {} })
      }
      bare.push(performance.now() - began)
    }
    return {
      plugins: count,
      coldMsPerPlugin: median(cold) / count,
      warmMsPerPlugin: median(warm) / count,
      bareRequireMsPerPlugin: median(bare) / count,
    }
  } finally {
    await manager.stop()
  }
}

/**
 * One before_* and after_* pair dispatched to 50 loaded plugins (real loader, real hook binding,
 * loop guard on) against a bare EventEmitter2 with 50 listeners on each of the two events:
 * its synchronous `emit` (which cannot await an async hook) and its `emitAsync` (which can).
 */
export async function hookPairBench(dir: string, count = 50, quick = false): Promise<Comparison[]> {
  const pluginsDir = join(dir, 'pair')
  mkdirSync(pluginsDir, { recursive: true })
  for (let i = 0; i < count; i++) writeFileSync(join(pluginsDir, `generated_${i}.ts`), source(i))
  const cacheDir = join(dir, 'pair-cache')
  const importer = new PluginImporter({ sdk: require('../index') }, cacheDir)
  const definitions: PluginDefinition[] = []
  for (const candidate of discover([{ source: 'user', dir: pluginsDir }]).candidates)
    definitions.push(await importer.import(candidate))
  /** A bus with the plugins loaded on it: in the manager's thread, or each in its own. */
  const loaded = async (threaded: boolean) => {
    // The built-in services' declarations (their actions are the hooks), on a bus of their own.
    const { catalogue } = createKernel().use(...builtinServices())
    const bus = new Bus({ catalogue })
    bus.setIdentifier(eventIdentifier(catalogue.actions()))
    const scope = new BusScope(bus, 'plugins', 'plugins')
    const options = {
      scope,
      logger: silentLogger,
      timeoutMs: 10_000,
      onHookFailure: () => {},
      runTask: () => {
        throw new Error('no tasks in this benchmark')
      },
    }
    const threads = {
      ...options,
      hosts: new HostPool(join(__dirname, '..', 'plugin-thread.js')),
      ownThread: false,
      maxMemoryMb: 256,
      maxExternalMb: 256,
      importMs: 60_000,
      logLevel: 'error',
      cacheDir,
      onFault: (_plugin: unknown, error: Error) => {
        throw error
      },
      onDisplaced: () => {
        throw new Error('a plugin thread of the benchmark ended')
      },
      successor: async () => undefined,
    }
    const plugins: RunningPlugin[] = await Promise.all(
      definitions.map((definition) =>
        threaded ? ThreadedPlugin.load(definition, threads) : LoadedPlugin.load(definition, options),
      ),
    )
    return { bus, plugins }
  }
  const { bus, plugins } = await loaded(false)
  // Loaded once the in-process figures are taken: fifty idle threads must not weigh on them.
  let inThreads: Awaited<ReturnType<typeof loaded>> | undefined
  let seen = 0
  const ee = new EventEmitter2({ wildcard: true, delimiter: ':', maxListeners: 0 })
  for (let i = 0; i < count; i++) {
    ee.on('before_setting_update', ({ key }: { key: string }) => {
      if (key === '') seen--
      seen++
    })
    ee.on('after_setting_update', ({ result }: { result: { status: string } }) => {
      if (result.status !== 'success') seen--
    })
  }
  const before = { key: 'custom.x', value: 1, mode: 'merge' as const }
  const after = { ...before, result: { status: 'success' as const } }
  const pairs = (on: Bus) => ({
    run: async (n: number) => {
      for (let i = 0; i < n; i++) {
        // As an action emits them (kernel/action.ts): before_* in turn, after_* side by side.
        await on.emit('before_setting_update', before)
        await on.emit('after_setting_update', after, { parallel: true })
      }
    },
  })
  const ours = pairs(bus)
  const sync = {
    run: (n: number) => {
      for (let i = 0; i < n; i++) {
        ee.emit('before_setting_update', before)
        ee.emit('after_setting_update', after)
      }
    },
  }
  const awaited = {
    run: async (n: number) => {
      for (let i = 0; i < n; i++) {
        await ee.emitAsync('before_setting_update', before)
        await ee.emitAsync('after_setting_update', after)
      }
    },
  }
  try {
    return [
      await compare(
        `before/after pair to ${count} plugins`,
        {
          baseline: ['EventEmitter2 emit ×2 (sync, cannot await)', sync],
          candidate: [`Bus.emit ×2 to ${count} plugin hooks`, ours],
        },
        { perRound: 20_000, quick },
      ),
      await compare(
        `before/after pair to ${count} plugins`,
        {
          baseline: ['EventEmitter2 emitAsync ×2 (awaits)', awaited],
          candidate: [`Bus.emit ×2 to ${count} plugin hooks`, ours],
        },
        { perRound: 5_000, quick },
      ),
      await (async () => {
        inThreads = await loaded(true)
        return compare(
          `before/after pair to ${count} plugins in a shared plugin thread`,
          {
            baseline: [`Bus.emit ×2 to ${count} plugin hooks in the manager's thread`, ours],
            candidate: [`Bus.emit ×2 to ${count} plugin hooks in their thread`, pairs(inThreads.bus)],
          },
          { perRound: 100, quick },
        )
      })(),
    ]
  } finally {
    for (const plugin of [...plugins, ...(inThreads?.plugins ?? [])]) await plugin.unload()
    // Keeps the baseline listeners' work observable, so it is not optimised away.
    process.stdout.write(seen < 0 ? '\n' : '')
  }
}

export interface ThreadMemoryPoint {
  readonly threads: number
  /** The process's resident memory (MB), once the threads are loaded and idle. */
  readonly rssMb: number
}

/**
 * The memory of idle plugin threads: a manager (no web server) with 0, then `counts` generated
 * plugins enabled, each in its own thread, idle; the process's RSS after each step (median of
 * `readings`, each after a garbage collection where --expose-gc allows one).
 */
export async function threadMemoryBench(
  dir: string,
  counts: readonly number[],
  readings = 5,
): Promise<ThreadMemoryPoint[]> {
  const dataDir = join(dir, 'thread-memory')
  const pluginsDir = join(dataDir, 'plugins')
  mkdirSync(pluginsDir, { recursive: true })
  const most = Math.max(...counts)
  for (let i = 0; i < most; i++) writeFileSync(join(pluginsDir, `generated_${i}.ts`), source(i))
  const manager = createManager({ dataDir, logger: silentLogger, defaultPlugins: false, web: false })
  await manager.start()
  const rss = async () => {
    const values: number[] = []
    for (let i = 0; i < readings; i++) {
      ;(globalThis as { gc?: () => void }).gc?.()
      await new Promise((resolve) => setTimeout(resolve, 200))
      values.push(process.memoryUsage.rss() / 1024 / 1024)
    }
    return median(values)
  }
  try {
    // Every plugin imported once in this process (discovery) before the first reading: what grows
    // from then on is the threads.
    await manager.bus.request('plugins:list', {})
    const points: ThreadMemoryPoint[] = [{ threads: 0, rssMb: await rss() }]
    let enabled = 0
    for (const count of [...counts].sort((a, b) => a - b)) {
      for (; enabled < count; enabled++)
        await manager.bus.request('plugins:set_enabled', { name: `generated_${enabled}`, enabled: true })
      points.push({ threads: count, rssMb: await rss() })
    }
    return points
  } finally {
    await manager.stop()
  }
}

export interface LoopResponsiveness {
  /** p99 latency (ms) of GET /api/servers and of a bus request, with no plugin code running. */
  readonly quiet: { readonly api: number; readonly bus: number }
  /** The same while a plugin's before_* hook loops forever in its thread (until hook_timeout_ms cuts it off). */
  readonly busy: { readonly api: number; readonly bus: number }
  readonly samples: { readonly quiet: number; readonly busy: number }
}

/**
 * Issue 23's figure: what a plugin hook that loops forever costs everyone else. A manager (web
 * on loopback, the plugin in a thread of its own) answers GET /api/servers and a bus request one
 * after another, first with nothing running, then while the plugin's before_setting_update spins
 * until `plugins.hook_timeout_ms` cuts it off; p99 of each.
 */
export async function loopResponsivenessBench(dir: string, quick = false): Promise<LoopResponsiveness> {
  const dataDir = join(dir, 'loop')
  mkdirSync(join(dataDir, 'plugins'), { recursive: true })
  writeFileSync(
    join(dataDir, 'plugins', 'spin.ts'),
    `import { PluginBase } from 'server-manager'
export default class Spin extends PluginBase {
  static version = '1.0.0'
  beforeSettingUpdate(p: { key: string }) { if (p.key === 'custom.spin') for (;;) {} }
}
`,
  )
  const {
    manager,
    url: base,
    token: accessToken,
  } = await signedInManager(dataDir, async (bus) => {
    await bus.request('settings:set', { key: 'plugins.hook_timeout_ms', value: quick ? 1_000 : 4_000 })
    await bus.request('plugins:set_enabled', { name: 'spin', enabled: true })
  })
  try {
    const { bus } = manager
    const url = `${base}/api/servers`
    const api = () =>
      new Promise<void>((resolve, reject) => {
        get(url, { headers: { Authorization: `Bearer ${accessToken}` } }, (res) => {
          res
            .resume()
            .on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`GET ${url}: ${res.statusCode}`))))
        }).on('error', reject)
      })
    const request = () => bus.request('settings:get', { key: 'web.port' })
    /** Both asked side by side, each one request after another, until `done`. */
    const sample = async (done: (count: number) => boolean) => {
      const times = { api: [] as number[], bus: [] as number[] }
      const series = async (into: number[], work: () => Promise<unknown>) => {
        while (!done(into.length)) {
          const began = performance.now()
          await work()
          into.push(performance.now() - began)
        }
      }
      await Promise.all([series(times.api, api), series(times.bus, request)])
      return times
    }
    await sample((count) => count >= 20) // warm-up: the first requests compile and fill caches
    const quiet = await sample((count) => count >= (quick ? 20 : 500))
    let spinning = true
    const spin = bus.request('settings:set', { key: 'custom.spin', value: 1 }).finally(() => {
      spinning = false
    })
    const busy = await sample(() => !spinning)
    await spin
    return {
      quiet: { api: p99(quiet.api), bus: p99(quiet.bus) },
      busy: { api: p99(busy.api), bus: p99(busy.bus) },
      samples: { quiet: quiet.api.length + quiet.bus.length, busy: busy.api.length + busy.bus.length },
    }
  } finally {
    await manager.stop()
  }
}

export interface PluginCost {
  readonly plugins: number
  /** From the spawn of `start` to its `ready in` line (ms, median), with no plugin of the user's and with `plugins`. */
  readonly readyMs: { readonly none: number; readonly many: number }
  /** The manager process's resident memory once ready (MB, median), likewise. */
  readonly rssMb: { readonly none: number; readonly many: number }
}

/**
 * What enabled plugins cost a manager (`server-manager start`, a process of its own): two data
 * directories, one with `count` generated TypeScript plugins enabled (their transpiled code
 * cached by a first start) and one with none, started in alternating rounds; the time until it
 * says it is ready, and its RSS then (VmRSS of /proc, a fifth of a second after ready).
 */
export async function pluginCostBench(dir: string, count = 30, rounds = 5, quick = false): Promise<PluginCost> {
  const none = join(dir, 'cost-none')
  const many = join(dir, 'cost-many')
  mkdirSync(join(many, 'plugins'), { recursive: true })
  mkdirSync(none, { recursive: true })
  for (let i = 0; i < count; i++) writeFileSync(join(many, 'plugins', `generated_${i}.ts`), source(i))
  const manager = createManager({ dataDir: many, logger: silentLogger, web: false })
  await manager.start()
  try {
    for (let i = 0; i < count; i++)
      await manager.bus.request('plugins:set_enabled', { name: `generated_${i}`, enabled: true })
  } finally {
    await manager.stop()
  }
  const once = async (dataDir: string) => {
    const began = performance.now()
    const child = await startManagerProcess(dataDir)
    const readyMs = performance.now() - began
    await new Promise((resolve) => setTimeout(resolve, 200))
    const status = readFileSync(`/proc/${child.pid}/status`, 'utf8')
    await stopProcess(child)
    return { readyMs, rssMb: Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1]) / 1024 }
  }
  // Each once first (caches filled, the plugins' state recorded), then the rounds.
  if (!quick) {
    await once(none)
    await once(many)
  }
  const results = { none: [] as { readyMs: number; rssMb: number }[], many: [] as { readyMs: number; rssMb: number }[] }
  for (let round = 0; round < rounds; round++) {
    results.none.push(await once(none))
    results.many.push(await once(many))
  }
  const of = (key: 'readyMs' | 'rssMb') => ({
    none: median(results.none.map((r) => r[key])),
    many: median(results.many.map((r) => r[key])),
  })
  return { plugins: count, readyMs: of('readyMs'), rssMb: of('rssMb') }
}
