import type { ChildProcess } from 'node:child_process'
import { expect } from 'chai'
import { cliIn, cliInOk } from '../../helpers/cli-in-process'
import { fakeBedrockDir, gameDataDir, nextSamples } from '../../helpers/game'
import { spawnManager, stop } from '../../helpers/run'
import { http, signIn } from '../../helpers/web'
import { adminSession, webUrl } from '../../helpers/web-process'

/** The first message of the event stream on `topics` (opened with `token`) that `matches`. */
async function nextMessage(
  url: string,
  topics: string,
  token: string,
  matches: (message: { type: string; topic: string; data: Record<string, unknown> }) => boolean = () => true,
) {
  const abort = new AbortController()
  const res = await fetch(`${url}/api/events/stream?topics=${encodeURIComponent(topics)}`, {
    headers: { Authorization: `Bearer ${token}`, Accept: 'text/event-stream' },
    signal: abort.signal,
  })
  if (res.status !== 200) throw new Error(`the stream of ${topics} answered ${res.status}: ${await res.text()}`)
  const reader = (res.body as ReadableStream<Uint8Array>).getReader()
  const decoder = new TextDecoder()
  let text = ''
  try {
    for (;;) {
      const { value, done } = await reader.read()
      if (done) throw new Error(`the stream ended: ${text}`)
      text += decoder.decode(value, { stream: true })
      for (let end = text.indexOf('\n\n'); end >= 0; end = text.indexOf('\n\n')) {
        const frame = text.slice(0, end)
        text = text.slice(end + 2)
        const data = frame.split('\n').find((line) => line.startsWith('data: '))
        if (!data) continue
        const message = JSON.parse(data.slice(6))
        if (matches(message)) return message
      }
    }
  } finally {
    abort.abort()
  }
}

/** A signed-in session of a new account with `role`, made through the CLI. */
async function session(dataDir: string, url: string, name: string, role: string): Promise<string> {
  const password = `${name} password`
  const made = await cliIn(dataDir, ['user', 'create', name, '--role', role, '--password-stdin'], {}, `${password}\n`)
  expect(made.code, made.stderr).to.equal(0)
  return signIn(url, name, password)
}

/** The resource series over HTTP from a real manager, with a game under its supervisor. */
describe('services/web: resource series and live samples', function () {
  this.timeout(120_000)
  let manager: ChildProcess | undefined

  afterEach(async () => {
    if (manager) await stop(manager)
    manager = undefined
  })

  it('serves the samples a supervisor took while no manager ran, then streams each new one', async () => {
    const data = gameDataDir()
    await cliInOk(data, ['setting', 'set', 'metrics.interval_s', '1'])
    await cliInOk(data, ['server', 'add', 's1', '--dir', fakeBedrockDir()])
    await cliInOk(data, ['server', 'start', 's1'])
    const before = await nextSamples(data, 's1', 3)
    manager = await spawnManager(data)
    const url = await webUrl(manager)
    const admin = await adminSession(data, url)

    const series = await http(`${url}/api/servers/s1/metrics?from=${(before[0]?.t as number) - 1}`, { token: admin })
    expect(series.status, series.text).to.equal(200)
    expect(series.json.columns.t).to.include.members(before.map((s) => s.t))
    const at = series.json.columns.t.indexOf(before[0]?.t)
    expect(series.json.columns.rss[at]).to.equal(before[0]?.rss)
    expect(series.json.columns.cpu_max[at]).to.equal(before[0]?.cpu)
    expect(series.json.step_s).to.equal(0)
    // Averaged on request, peaks kept.
    const coarse = await http(`${url}/api/servers/s1/metrics?from=0&step_s=3600`, { token: admin })
    expect(coarse.json.step_s).to.equal(3600)
    expect(coarse.json.columns.t.length).to.be.within(1, 2)
    const refused = await http(`${url}/api/servers/s1/metrics?from=2000&to=1000`, { token: admin })
    expect(refused.status).to.equal(422)

    const live = await nextMessage(url, 'servers:sampled:s1', admin)
    expect(live).to.include({ type: 'servers:sampled', topic: 'servers:sampled:s1' })
    expect(live.data.serverName).to.equal('s1')
    const sample = live.data.sample as { t: number; rss: number; uptime_s: number }
    expect(sample.t).to.be.greaterThan(before.at(-1)?.t as number)
    expect(sample.rss).to.be.greaterThan(0)
    const run = await http(`${url}/api/servers/s1/status`, { token: admin })
    expect(run.json.run.metrics.rss).to.be.greaterThan(0)
    const listed = await http(`${url}/api/servers`, { token: admin })
    expect(listed.json.servers[0].metrics.rss).to.be.greaterThan(0)
    await cliInOk(data, ['server', 'stop', 's1'])
  })

  it("samples the host in the manager: a moderator sees its series and live samples; a user only the servers'", async () => {
    const data = gameDataDir()
    await cliInOk(data, ['setting', 'set', 'metrics.interval_s', '1'])
    await cliInOk(data, ['server', 'add', 's1', '--dir', fakeBedrockDir()])
    manager = await spawnManager(data)
    const url = await webUrl(manager)
    await adminSession(data, url)
    const moderator = await session(data, url, 'mod', 'moderator')
    const user = await session(data, url, 'someone', 'user')

    const live = await nextMessage(url, 'metrics:host_sampled', moderator)
    const sample = live.data as { t: number; cpu: number; mem_used: number; mem_total: number; disk_total: number }
    expect(sample.cpu).to.be.within(0, 100)
    expect(sample.mem_used).to.be.within(1, sample.mem_total)
    expect(sample.disk_total).to.be.greaterThan(0)
    const host = await http(`${url}/api/host/metrics`, { token: moderator })
    expect(host.status, host.text).to.equal(200)
    expect(host.json.columns.t).to.include(sample.t)
    expect(host.json.latest.t).to.be.at.least(sample.t)

    expect((await http(`${url}/api/host/metrics`, { token: user })).status).to.equal(403)
    expect((await http(`${url}/api/host/metrics`)).status).to.equal(401)
    expect((await http(`${url}/api/servers/s1/metrics`)).status).to.equal(401)
    const mine = await http(`${url}/api/servers/s1/metrics`, { token: user })
    expect(mine.status).to.equal(200)
    expect(mine.json.columns).to.deep.equal({ t: [], cpu: [], cpu_max: [], rss: [], rss_max: [], disk: [] })
    expect((await http(`${url}/api/servers/nope/metrics`, { token: user })).status).to.equal(404)
    const stream = (topics: string) =>
      http(`${url}/api/events/stream?topics=${topics}`, { token: user, headers: { Accept: 'text/event-stream' } })
    expect((await stream('metrics:host_sampled')).status).to.equal(403)
  })

  it('restarts the host sampling once per change, however many metrics settings change at once: turned off, it stops', async () => {
    const data = gameDataDir()
    await cliInOk(data, ['setting', 'set', 'metrics.interval_s', '1'])
    await cliInOk(data, ['server', 'add', 's1', '--dir', fakeBedrockDir()])
    // The game's samples (every second, by its supervisor) are the clock the host's are told by.
    await cliInOk(data, ['server', 'start', 's1'])
    manager = await spawnManager(data)
    const url = await webUrl(manager)
    const admin = await adminSession(data, url)
    // Changes at once: each restarts the host's sampling while the others are still reading the settings.
    const changes = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        http(`${url}/api/settings/metrics.disk_interval_s`, { method: 'PUT', token: admin, body: { value: 10 + i } }),
      ),
    )
    for (const change of changes) expect(change.status, change.text).to.equal(200)
    const off = await http(`${url}/api/settings/metrics.enabled`, {
      method: 'PUT',
      token: admin,
      body: { value: false },
    })
    expect(off.status, off.text).to.equal(200)

    // Three of the game's samples (two seconds and more) without a host sample: no sampler was left running.
    let gameSamples = 0
    const first = await nextMessage(url, 'metrics:host_sampled,servers:sampled:s1', admin, (message) => {
      if (message.type === 'servers:sampled') gameSamples++
      return message.type === 'metrics:host_sampled' || gameSamples === 3
    })
    expect(first.type).to.equal('servers:sampled')
    await cliInOk(data, ['server', 'stop', 's1'])
  })
})
