import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { expect } from 'chai'
import type { PluginRecord } from '../../../manager'
import { cliIn, cliInOk } from '../../helpers/cli-in-process'
import { factsOf } from '../../helpers/facts'
import { plugin, pluginRecord, trace, traced, useTrace, withPlugins, writePlugins } from '../../helpers/plugins'
import { rejection } from '../../helpers/rejection'
import { cli, spawnManager, stop, waitForLine } from '../../helpers/run'
import { tempDir } from '../../helpers/temp-dir'
import { http } from '../../helpers/web'
import { adminSession, webUrl } from '../../helpers/web-process'

/*
 * The managers stay processes (spawnManager): their memory is read from /proc by pid, their clean
 * exit after a plugin's fault is what stop() returns. Cold commands (cli) stay where the process
 * is the point: the enable of a plugin that calls process.exit in onLoad or whose top level loops
 * or exits (a one-shot process that runs that code), and the command that runs while another is
 * answered (a hook that loops under `setting set`, an import that hangs under `plugin reload`:
 * cliIn runs one command at a time). The rest run in this process (cliIn): the other set-ups, and
 * the clients of a running manager, the reads that go on while a hook loops among them.
 */

/**
 * Asks the running manager for the plugin's record until `holds` (a condition, checked each look;
 * the looks a fifth of a second apart, so that waiting does not load the manager it watches).
 */
async function until(dir: string, name: string, holds: (r: PluginRecord) => boolean): Promise<PluginRecord> {
  for (;;) {
    const now = await pluginRecord(dir, name)
    if (holds(now)) return now
    await sleep(200)
  }
}

/**
 * A data directory with these plugins enabled and settings set, before any manager runs. The
 * plugins named in `cold` are enabled by CLI processes (their code ends or blocks its thread as it
 * is loaded), the others in this process.
 */
async function setUp(
  files: Record<string, string>,
  settings: Record<string, string> = {},
  cold: readonly string[] = [],
): Promise<string> {
  const dir = tempDir()
  // In this process: no plugin is there yet.
  for (const [key, value] of Object.entries(settings)) await cliInOk(dir, ['setting', 'set', key, value])
  writePlugins(dir, files)
  useTrace(dir)
  // Each enable may fail (a plugin that ends its thread in onLoad): the record says how.
  for (const name of Object.keys(files).map((file) => file.replace(/\.(ts|js)$/, '')))
    await (cold.includes(name) ? cli : cliIn)(dir, ['plugin', 'enable', name])
  return dir
}

describe('services/plugins: each plugin in a thread of its own (issue 23, must hold)', function () {
  this.timeout(240_000)

  it('keeps status and the API answering while a hook loops forever; the action completes; the plugin is restarted, then quarantined', async () => {
    const spin = plugin(
      'Spin',
      `beforeSettingUpdate(p: { key: string }) {
    ${trace('p.key')}
    if (p.key === 'custom.spin') while (true) {}
  }`,
    )
    const dir = await setUp(
      { 'spin.ts': spin },
      { 'plugins.hook_timeout_ms': '4000', 'plugins.max_strikes': '2', 'plugins.strike_window_s': '3600' },
    )
    const manager = await spawnManager(dir)
    try {
      const url = await webUrl(manager)
      const token = await adminSession(dir, url)
      const api = async () => {
        const reply = await http(`${url}/api/servers`, { token })
        expect(reply.status).to.equal(200)
      }
      const status = async () => {
        expect((await cliIn(dir, ['status'])).code).to.equal(0)
      }
      let setDone = false
      // A process: the reads below run in this process while it waits.
      const set = cli(dir, ['setting', 'set', 'custom.spin', '1']).finally(() => {
        setDone = true
      })
      while (!traced<string>().includes('custom.spin')) await new Promise(setImmediate)
      // While the hook loops (until the 4 s timeout cuts it off), each asked one after another:
      // what is answered before the set is, was answered by a manager whose own loop is free.
      // (How fast, against a quiet manager, is a benchmark's figure: npm run bench loop.)
      const answered = { api: 0, status: 0 }
      const during = async (kind: keyof typeof answered, ask: () => Promise<void>) => {
        while (!setDone) {
          await ask()
          if (!setDone) answered[kind]++
        }
      }
      await Promise.all([during('api', api), during('status', status)])
      const done = await set
      expect(done.code, done.stderr).to.equal(0)
      expect(done.stdout).to.equal('custom.spin = 1\n')
      // At most one of each was waiting when the hook was cut off: two prove an answer mid-loop.
      expect(answered.api, 'API answers while the hook looped').to.be.at.least(2)
      expect(answered.status, 'status answers while the hook looped').to.be.at.least(2)
      expect(await cliInOk(dir, ['setting', 'get', 'custom.spin'])).to.equal('1\n')
      // The hook was cut off at the timeout; its thread, which answers no ping, is ended a moment later.
      const ended = 'It held its thread (a loop), so the thread was ended; the plugins beside it there start again.'
      let log = ''
      while (!log.includes(ended)) {
        log = readFileSync(join(dir, 'logs', 'server-manager.log'), 'utf8')
        await new Promise(setImmediate)
      }
      expect(log).to.contain("The plugin 'spin' did not return from before_setting_update within 4000 ms.")

      // Restarted after its backoff: its hooks run again. Its record still says 'loaded' from the log
      // line above until the fault is recorded, so the fault's fact (which stays) is waited for first.
      while (
        !(await factsOf(dir, 'plugins:failed')).some((fact) => (fact.payload as { name?: string }).name === 'spin')
      )
        await sleep(200)
      await until(dir, 'spin', (r) => r.state === 'loaded')
      expect((await cliIn(dir, ['setting', 'set', 'custom.other', '1'])).code).to.equal(0)
      expect(traced<string>().filter((key) => key === 'custom.other')).to.have.length(1)

      // The second fault within the window: quarantined, with the reason and the hook, until enabled.
      expect((await cliIn(dir, ['setting', 'set', 'custom.spin', '2'])).code).to.equal(0)
      const quarantined = await until(dir, 'spin', (r) => r.blocked !== undefined)
      expect(quarantined).to.include({ state: 'failed', enabled: true })
      expect(quarantined.error?.code).to.equal('SM_ERR_PLUGIN_TIMEOUT')
      expect(quarantined.blocked?.hook).to.equal('before_setting_update')
      expect(await cliInOk(dir, ['plugin', 'info', 'spin'])).to.match(
        /^blocked +since \S+ \(its thread failed too often, last in before_setting_update\); kept out until 'plugin enable spin'/m,
      )
      expect((await cliIn(dir, ['status'])).code).to.equal(0)
      expect((await cliIn(dir, ['plugin', 'enable', 'spin'])).code).to.equal(0)
      expect((await pluginRecord(dir, 'spin')).state).to.equal('loaded')
    } finally {
      expect(await stop(manager)).to.equal(0)
    }
  })

  it('ends only the thread of a route that allocates without bound: SM_ERR_PLUGIN_OUT_OF_MEMORY names the plugin and the route', async () => {
    const hog = `import { PluginBase } from 'server-manager'
import { Router } from 'server-manager/web'

export default class Hog extends PluginBase {
  static version = '1.0.0'
  getRouters() {
    const router = new Router({ prefix: '/hog' })
    router.get('/eat', (ctx) => {
      const kept: string[][] = []
      for (;;) kept.push(new Array(100_000).fill('x'))
    })
    router.get('/ok', (ctx) => { ctx.body = { ok: true } })
    return [router]
  }
}
`
    const limitMb = 64
    // Its restart waits (an hour) until an admin enables it: the 503 meanwhile is certain.
    const dir = await setUp(
      { 'hog.ts': hog },
      { 'plugins.max_memory_mb': String(limitMb), 'plugins.restart_delay_s': '3600' },
    )
    const manager = await spawnManager(dir)
    try {
      const url = await webUrl(manager)
      const token = await adminSession(dir, url)
      expect((await http(`${url}/hog/ok`, { token })).json).to.deep.equal({ ok: true })
      const rss = (field: 'VmRSS' | 'VmHWM') =>
        Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${manager.pid}/status`, 'utf8'))?.[1]) /
        1024
      const before = rss('VmRSS')
      const eaten = await http(`${url}/hog/eat`, { token })
      expect(eaten.status).to.equal(507)
      expect(eaten.json.code).to.equal('SM_ERR_PLUGIN_OUT_OF_MEMORY')
      expect(eaten.json.message).to.contain("The plugin 'hog' ran out of memory (over 64 MB) in the route GET /hog/eat")
      // The manager's own memory, at its peak, grew by no more than the plugin's thread may use (its
      // heap limit, and as much again for V8's young generation and the thread's own code).
      expect(rss('VmHWM') - before).to.be.below(2 * limitMb)
      expect((await cliIn(dir, ['status'])).code).to.equal(0)
      expect((await http(`${url}/api/servers`, { token })).status).to.equal(200)
      const hogRecord = await pluginRecord(dir, 'hog')
      expect(hogRecord.error?.code).to.equal('SM_ERR_PLUGIN_OUT_OF_MEMORY')
      // While it restarts, its routes answer 503 with Retry-After; then it answers again.
      const restarting = await http(`${url}/hog/ok`, { token })
      expect(restarting.status).to.equal(503)
      expect(restarting.json.code).to.equal('SM_ERR_PLUGIN_RESTARTING')
      expect(Number(restarting.headers.get('retry-after'))).to.equal(3600)
      await cliInOk(dir, ['plugin', 'enable', 'hog'])
      expect((await pluginRecord(dir, 'hog')).state).to.equal('loaded')
      expect((await http(`${url}/hog/ok`, { token })).json).to.deep.equal({ ok: true })
    } finally {
      expect(await stop(manager)).to.equal(0)
    }
  })

  it('lives on, with every other plugin, when a plugin calls process.exit(1) in onLoad or in a listener', async () => {
    const dir = await setUp(
      {
        'quitter.ts': plugin('Quitter', 'override onLoad() { process.exit(1) }'),
        'leaver.ts': plugin(
          'Leaver',
          "override async onLoad() { await this.api.listenForEvent('leaver:go', () => process.exit(1)) }",
        ),
        'stayer.ts': plugin(
          'Stayer',
          `override async onLoad() { await this.api.listenForEvent('stayer:ping', (p: any) => { ${trace('p')} }) }`,
        ),
      },
      // Not restarted while the test looks: a restart would clear the error it looks for.
      { 'plugins.restart_delay_s': '3600' },
      ['quitter'],
    )
    const quitter = await pluginRecord(dir, 'quitter')
    expect(quitter.state).to.equal('failed')
    expect(quitter.error?.code).to.equal('SM_ERR_PLUGIN_EXITED')
    expect(quitter.error?.message).to.contain("The plugin 'quitter' ended its thread with process.exit(1) in onLoad")
    const manager = await spawnManager(dir)
    try {
      await waitForLine(manager, /^ready in/)
      const left = JSON.parse(await cliInOk(dir, ['event', 'trigger', 'leaver:go', '--json']))
      expect(left).to.include({ listeners: 1, delivered: 0 })
      expect((await cliIn(dir, ['status'])).code).to.equal(0)
      const leaver = await until(dir, 'leaver', (r) => r.error?.code === 'SM_ERR_PLUGIN_EXITED')
      expect(leaver.error?.message).to.contain('in leaver:go')
      // Stayer shared leaver's thread (plugins.isolation 'shared'): it is started again at once, with no strike.
      const listening = async () =>
        (JSON.parse(await cliInOk(dir, ['plugin', 'info', 'stayer', '--json'])) as { listeners: number }).listeners
      while ((await listening()) !== 1) await sleep(100)
      const stayer = await pluginRecord(dir, 'stayer')
      expect(stayer.state).to.equal('loaded')
      expect(stayer.error).to.equal(undefined)
      const stayed = JSON.parse(
        await cliInOk(dir, ['event', 'trigger', 'stayer:ping', '--json', '--payload', '{"n":1}']),
      )
      expect(stayed).to.include({ listeners: 1, delivered: 1 })
      expect(traced()).to.deep.equal([{ n: 1 }])
    } finally {
      expect(await stop(manager)).to.equal(0)
    }
  })

  it('imports plugin modules for discovery in a thread: a module whose top level loops or exits costs only its own import', async () => {
    const dir = await setUp(
      {
        'looper.ts': `;${trace("'looper imported'")}\nwhile (true) {}\n${plugin('Looper')}`,
        'exiter.ts': `;process.exit(3)\n${plugin('Exiter')}`,
        // Its forgotten promise fails after its import answered: never blamed on the next module.
        'careless.ts': `;Promise.reject(new Error('careless forgot a catch'))\n${plugin('Careless')}`,
        'fine.ts': plugin('Fine', `override onLoad() { ${trace("'fine loaded'")} }`),
      },
      { 'plugins.import_timeout_s': '2' },
      ['looper', 'exiter'],
    )
    const looper = await pluginRecord(dir, 'looper')
    expect(looper).to.include({ state: 'invalid' })
    expect(looper.error?.code).to.equal('SM_ERR_PLUGIN_LOAD_TIMEOUT')
    expect(looper.error?.message).to.contain('its import (its top-level code)')
    const exiter = await pluginRecord(dir, 'exiter')
    expect(exiter.error?.code).to.equal('SM_ERR_PLUGIN_EXITED')
    expect(exiter.error?.message).not.to.contain('careless')
    // Once found hanging, its module is not run again by each command that discovers plugins
    // (only by an enable of it, as the set-up's did, or a reload).
    const imports = () => traced().filter((line) => line === 'looper imported').length
    const found = imports()
    await pluginRecord(dir, 'looper')
    expect(imports()).to.equal(found)
    const manager = await spawnManager(dir)
    try {
      const url = await webUrl(manager)
      await waitForLine(manager, /^ready in/)
      expect(imports()).to.equal(found)
      const fine = await pluginRecord(dir, 'fine')
      expect(fine.state, JSON.stringify(fine.error)).to.equal('loaded')
      // A reload looks at it again (its import hangs again); the manager answers meanwhile and after.
      const token = await adminSession(dir, url)
      // A process: the status below runs in this process while it waits on the import.
      const reloading = cli(dir, ['plugin', 'reload'])
      expect((await cliIn(dir, ['status'])).code).to.equal(0)
      expect((await http(`${url}/api/servers`, { token })).status).to.equal(200)
      const reloaded = await reloading
      expect(reloaded.stdout + reloaded.stderr).to.contain('looper')
      expect(imports()).to.equal(found + 1)
      expect((await pluginRecord(dir, 'fine')).state).to.equal('loaded')
      expect((await pluginRecord(dir, 'looper')).error?.code).to.equal('SM_ERR_PLUGIN_LOAD_TIMEOUT')
    } finally {
      expect(await stop(manager)).to.equal(0)
    }
  })

  it("holds a plugin's thread to what this.api may do, whatever it posts: other commands and others' secrets are refused", async () => {
    // Its own port to the manager is out of its reach, but not out of its code's: it takes it
    // from the next message its this.api posts.
    const capture = `const { MessagePort } = require('node:worker_threads')
    const post = MessagePort.prototype.postMessage
    let port: any
    MessagePort.prototype.postMessage = function (this: any, ...args: any[]) {
      port = this
      MessagePort.prototype.postMessage = post
      return post.apply(this, args as never)
    }
    await this.api.getGlobalSetting('web.port')`
    const raw = (ask: string) => `await new Promise((resolve) => {
      const id = 1e9 + Math.floor(Math.random() * 1e6)
      port.on('message', (m: any) => { if (m.t === 'result' && m.id === id) resolve(${trace('m.ok ? { ok: true } : m.error.coded.code')}) })
      port.postMessage({ t: 'call', id, body: { in: undefined, ask: ${ask} } })
    })`
    const forger = plugin(
      'Forger',
      `override async onLoad() {
    ${capture}
    ${raw("{ op: 'request', name: 'auth:list_users', payload: {} }")}
    ${raw("{ op: 'api', name: 'constructor', args: [] }")}
    ${raw("{ op: 'api', name: 'getGlobalSetting', args: ['nats.password'] }")}
    ${raw("{ op: 'callback', fn: 1, args: [] }")}
    ${raw("{ op: 'api', name: 'getGlobalSetting', args: ['web.port'] }")}
  }`,
    )
    await setUp({ 'forger.ts': forger })
    expect(traced()).to.deep.equal([
      'SM_ERR_PLUGIN_FORBIDDEN',
      'SM_ERR_PLUGIN_FORBIDDEN',
      'SM_ERR_PLUGIN_FORBIDDEN',
      'SM_ERR_PLUGIN_FORBIDDEN',
      { ok: true },
    ])
  })

  it('cuts off a hook that only waits, and leaves its thread running: only a thread that does not answer is ended', async () => {
    const waiter = plugin(
      'Waiter',
      `beforeSettingUpdate(p: { key: string }) {
    ${trace('p.key')}
    if (p.key === 'custom.wait') return new Promise(() => {})
  }`,
    )
    await withPlugins(
      { 'waiter.ts': waiter },
      { settings: { 'plugins.hook_timeout_ms': 2_000 }, enable: ['waiter'] },
      async ({ manager }) => {
        await manager.bus.request('settings:set', { key: 'custom.wait', value: 1 })
        const info = await manager.bus.request('plugins:info', { name: 'waiter' })
        expect(info.state).to.equal('loaded')
        expect(info.lastHookError?.code).to.equal('SM_ERR_KERNEL_LISTENER_TIMEOUT')
        // Its thread still answers: its hooks run on.
        await manager.bus.request('settings:set', { key: 'custom.after', value: 1 })
        expect(traced<string>()).to.deep.equal(['custom.wait', 'custom.after'])
      },
    )
  })

  it('in a thread shared with others, ends only the plugin whose hook loops: its neighbours start again at once, with no strike, and those after it in the round hear it', async () => {
    const spin = plugin(
      'Spin',
      `beforeSettingUpdate(p: { key: string }) {
    if (p.key === 'custom.spin') while (true) {}
  }`,
    )
    const stayer = plugin(
      'Stayer',
      `override onLoad() { ${trace("'stayer loaded'")} }
  beforeSettingUpdate(p: { key: string }) { ${trace('p.key')} }`,
    )
    await withPlugins(
      { 'spin.ts': spin, 'stayer.ts': stayer },
      { settings: { 'plugins.hook_timeout_ms': 1_000, 'plugins.restart_delay_s': 3600 }, enable: ['spin', 'stayer'] },
      async ({ manager }) => {
        const info = (name: string) => manager.bus.request('plugins:info', { name })
        // Both hooks went to their shared thread in one batch; spin's loop held it.
        await manager.bus.request('settings:set', { key: 'custom.spin', value: 1 })
        for (;;) if ((await info('spin')).error?.code === 'SM_ERR_PLUGIN_TIMEOUT') break
        expect((await info('spin')).error?.message).to.contain(
          "The plugin 'spin' did not return from before_setting_update within 1000 ms.",
        )
        while ((await info('stayer')).hooks.length === 0) await sleep(50)
        const back = await info('stayer')
        expect(back.state).to.equal('loaded')
        expect(back.error).to.equal(undefined)
        await manager.bus.request('settings:set', { key: 'custom.after', value: 1 })
        // Stayer's hook comes after spin's in the round: it never began, so its new start hears it.
        expect(traced()).to.deep.equal(['stayer loaded', 'stayer loaded', 'custom.spin', 'custom.after'])
      },
    )
  })

  it('in a shared thread, still hears the veto of a plugin after one whose hook loops, and refuses the change', async () => {
    const veto = plugin(
      'Pc',
      `beforeSettingUpdate(p: { key: string }) {
    if (p.key === 'custom.guarded') return { cancel: true, reason: 'guarded' }
  }`,
    )
    await withPlugins(
      {
        'pa.ts': plugin('Pa', `beforeSettingUpdate(p: { key: string }) { ${trace('`pa:${p.key}`')} }`),
        'pb.ts': plugin(
          'Pb',
          "beforeSettingUpdate(p: { key: string }) { if (p.key === 'custom.guarded') while (true) {} }",
        ),
        'pc.ts': veto,
      },
      { settings: { 'plugins.hook_timeout_ms': 1_000, 'plugins.restart_delay_s': 3600 }, enable: ['pa', 'pb', 'pc'] },
      async ({ manager }) => {
        const refused = await rejection(manager.bus.request('settings:set', { key: 'custom.guarded', value: 1 }))
        expect(refused.code).to.equal('SM_ERR_SETTINGS_UPDATE_CANCELLED')
        expect(refused.message).to.contain('guarded')
        expect((await manager.bus.request('settings:get', { key: 'custom.guarded' })).value).to.equal(undefined)
        // Pa ran before the loop: once, not again on its new start.
        expect(traced()).to.deep.equal(['pa:custom.guarded'])
        // Its fault is recorded once the plugins beside it are back.
        for (;;)
          if ((await manager.bus.request('plugins:info', { name: 'pb' })).error?.code === 'SM_ERR_PLUGIN_TIMEOUT') break
      },
    )
  })

  it('in a shared thread, lets hooks that each keep within the timeout hold it longer together', async () => {
    const busy = (name: string) =>
      plugin(name, 'beforeSettingUpdate() { const until = Date.now() + 600; while (Date.now() < until) {} }')
    await withPlugins(
      { 'wa.ts': busy('Wa'), 'wb.ts': busy('Wb'), 'wc.ts': busy('Wc') },
      { settings: { 'plugins.hook_timeout_ms': 1_000 }, enable: ['wa', 'wb', 'wc'] },
      async ({ manager }) => {
        await manager.bus.request('settings:set', { key: 'custom.busy', value: 1 })
        for (const name of ['wa', 'wb', 'wc']) {
          const info = await manager.bus.request('plugins:info', { name })
          expect(info.state, name).to.equal('loaded')
          expect(info.error, name).to.equal(undefined)
          expect(info.hookFailures, name).to.equal(0)
        }
      },
    )
  })

  for (const how of ['a timer', 'a sleep of timers/promises', 'a file read'] as const)
    it(`in a shared thread, ends a plugin whose code loops from ${how}, with no call to notice it, and blames it`, async () => {
      const start = {
        'a timer': 'setTimeout(() => { while (true) {} }, 100)',
        'a sleep of timers/promises':
          "void (async () => { await require('node:timers/promises').setTimeout(100); while (true) {} })()",
        'a file read': "require('node:fs').readFile(__filename, () => { while (true) {} })",
      }[how]
      await withPlugins(
        {
          'ticker.ts': plugin('Ticker', 'override onLoad() { setInterval(() => {}, 5) }'),
          'looper.ts': plugin('Looper', `override onLoad() { ${start} }`),
          'stayer.ts': plugin('Stayer', `override onLoad() { ${trace("'stayer loaded'")} }`),
        },
        {
          settings: { 'plugins.hook_timeout_ms': 1_000, 'plugins.restart_delay_s': 3600 },
          // The looper last: the others are loaded before its loop begins.
          enable: ['ticker', 'stayer', 'looper'],
        },
        async ({ manager }) => {
          const info = (name: string) => manager.bus.request('plugins:info', { name })
          for (;;) if ((await info('looper')).error?.code === 'SM_ERR_PLUGIN_TIMEOUT') break
          expect((await info('looper')).error?.message).to.contain('its own code')
          for (const name of ['ticker', 'stayer']) expect((await info(name)).error, name).to.equal(undefined)
          expect(traced()).to.deep.equal(['stayer loaded', 'stayer loaded'])
        },
      )
    })

  it("clears a disabled plugin's timers in its shared thread, those of node:timers too", async () => {
    const ticking = (name: string, fn: string) =>
      plugin(name, `override onLoad() { ${fn}(() => { ${trace(`'${name.toLowerCase()}'`)} }, 20) }`)
    await withPlugins(
      {
        'globe.ts': ticking('Globe', 'setInterval'),
        'moduled.ts': ticking('Moduled', "require('node:timers').setInterval"),
        'stayer.ts': ticking('Stayer', 'setInterval'),
      },
      { enable: ['globe', 'moduled', 'stayer'] },
      async ({ manager }) => {
        while (!['globe', 'moduled'].every((name) => traced().includes(name))) await sleep(20)
        await manager.bus.request('plugins:set_enabled', { name: 'globe', enabled: false })
        await manager.bus.request('plugins:set_enabled', { name: 'moduled', enabled: false })
        // They leave the thread once what they asked is answered (a moment after the disable);
        // the stayer's own interval ticks on meanwhile, then twenty more times alone.
        const ticks = async (n: number) => {
          const from = traced().length
          while (traced().length < from + n) await sleep(20)
          return from
        }
        await ticks(20)
        const after = await ticks(20)
        expect(traced().slice(after)).to.satisfy((lines: string[]) => lines.every((line) => line === 'stayer'))
      },
    )
  })

  for (const isolation of ['shared', 'thread'] as const)
    it(`plugins.isolation '${isolation}': a plugin that exits ends ${isolation === 'shared' ? 'its thread, whose other plugins start again' : 'only its own thread'}`, async () => {
      await withPlugins(
        {
          'leaver.ts': plugin(
            'Leaver',
            "override async onLoad() { await this.api.listenForEvent('leaver:go', () => process.exit(1)) }",
          ),
          'stayer.ts': plugin('Stayer', `override onLoad() { ${trace("'stayer loaded'")} }`),
        },
        { settings: { 'plugins.isolation': isolation, 'plugins.restart_delay_s': 3600 }, enable: ['leaver', 'stayer'] },
        async ({ manager }) => {
          const { delivered } = await manager.bus.request('plugins:trigger_event', { event: 'leaver:go', payload: {} })
          expect(delivered).to.equal(0)
          for (;;)
            if ((await manager.bus.request('plugins:info', { name: 'leaver' })).error?.code === 'SM_ERR_PLUGIN_EXITED')
              break
          if (isolation === 'shared') while (traced().length < 2) await sleep(50)
          expect(traced()).to.deep.equal(
            isolation === 'shared' ? ['stayer loaded', 'stayer loaded'] : ['stayer loaded'],
          )
          expect((await manager.bus.request('plugins:info', { name: 'stayer' })).state).to.equal('loaded')
        },
      )
    })

  it('blames process.exit on the plugin whose code calls it, not on the one whose code was entered', async () => {
    await withPlugins(
      {
        // Hands out a function of its own that exits; another plugin's listener calls it.
        'armer.ts': plugin('Armer', 'override onLoad() { (globalThis as any).__quit = () => process.exit(1) }'),
        'caller.ts': plugin(
          'Caller',
          `override async onLoad() {
    ${trace("'caller loaded'")}
    await this.api.listenForEvent('caller:go', () => (globalThis as any).__quit())
  }`,
        ),
      },
      { settings: { 'plugins.restart_delay_s': 3600 }, enable: ['armer', 'caller'] },
      async ({ manager }) => {
        await manager.bus.request('plugins:trigger_event', { event: 'caller:go', payload: {} })
        const info = (name: string) => manager.bus.request('plugins:info', { name })
        for (;;) if ((await info('armer')).error?.code === 'SM_ERR_PLUGIN_EXITED') break
        expect((await info('caller')).error).to.equal(undefined)
        expect(traced()).to.deep.equal(['caller loaded', 'caller loaded'])
      },
    )
  })

  it('ends only the thread of a plugin that posts a message the manager cannot take', async () => {
    const garbler = plugin(
      'Garbler',
      "override onLoad() { setTimeout(() => require('node:worker_threads').parentPort.postMessage({ t: 'log', level: 'nonsense', message: 'x' }), 0) }",
    )
    await withPlugins(
      { 'garbler.ts': garbler, 'stayer.ts': plugin('Stayer', `afterSettingUpdate(p: any) { ${trace('p.key')} }`) },
      { enable: ['garbler', 'stayer'] },
      async ({ manager }) => {
        for (;;) {
          const info = await manager.bus.request('plugins:info', { name: 'garbler' })
          if (info.error?.code === 'SM_ERR_PLUGIN_CRASHED') break
        }
        await manager.bus.request('settings:set', { key: 'custom.still', value: 1 })
        expect(traced()).to.deep.equal(['custom.still'])
      },
    )
  })
})
