import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import { cliIn } from '../../helpers/cli-in-process'
import { writePlugins } from '../../helpers/plugins'
import { spawnManager, stop, waitForLine } from '../../helpers/run'
import { tempDir } from '../../helpers/temp-dir'
import { http, signIn } from '../../helpers/web'

async function ok(dataDir: string, args: string[], input?: string): Promise<string> {
  const r = await cliIn(dataDir, args, {}, input)
  if (r.code !== 0) throw new Error(`${args.join(' ')} exited ${r.code}:\n${r.stdout}\n${r.stderr}`)
  return r.stdout + r.stderr
}

/** Fails naming the secret when any of `secrets` shows in `text`. */
function expectNone(text: string, secrets: readonly string[], where: string): void {
  for (const secret of secrets) expect(text, `${where} shows '${secret}'`).to.not.contain(secret)
}

// Secret by each route there is: the name rule (widened), a nested name, a URL password, and
// keys that only a flag makes secret (an admin's --secret, a plugin's static declaration).
const BY_NAME = {
  'custom.db_password': 'hunter2-db',
  'custom.rcon_pw': 'rcon-pw-1',
  'custom.pin': '48151623',
  'custom.webhook_url': 'https://hooks.example/T0/B0/webhook-tok-1',
  'custom.discord_api_key': 'api-key-1',
}
const NESTED = { host: 'play.example', port: 19132, password: 'nested-pw-1' }
const URL_VALUE = { feed: 'https://bob:url-pw-1@example.com/feed' }

describe('services/settings: secret settings are hidden in every output, and revealed on request', function () {
  this.timeout(90_000)

  it('CLI: setting get/list (and --json), set, events and the log hide secrets by name, nested, in URLs and by --secret; get --reveal shows one; values are stored and replayed exactly', async () => {
    const data = join(tempDir(), 'data')
    // One change of the group: each secret inside is hidden by its own name.
    const group = Object.fromEntries(
      Object.entries(BY_NAME).map(([key, value]) => [key.slice('custom.'.length), value]),
    )
    expectNone(await ok(data, ['setting', 'set', 'custom', JSON.stringify(group)]), Object.values(BY_NAME), 'set')
    await ok(data, ['setting', 'set', 'custom.rcon', JSON.stringify(NESTED)])
    await ok(data, ['setting', 'set', 'custom.links', JSON.stringify(URL_VALUE)])
    const flagged = await ok(data, ['setting', 'set', 'custom.admin_note', 'flagged-secret-1', '--secret'])
    // Marked once, secret for good: a later set without the flag is hidden too.
    const again = await ok(data, ['setting', 'set', 'custom.admin_note', 'flagged-secret-2'])
    const secrets = [
      ...Object.values(BY_NAME),
      'nested-pw-1',
      'url-pw-1',
      'flagged-secret-1',
      'flagged-secret-2',
      'webhook-tok-1',
    ]
    expectNone(flagged + again, secrets, 'setting set')

    expect(await ok(data, ['setting', 'get', 'custom.rcon_pw'])).to.equal('[redacted]\n')
    expect(await ok(data, ['setting', 'get', 'custom.admin_note', '--json'])).to.equal('"[redacted]"\n')
    const custom = JSON.parse(await ok(data, ['setting', 'get', 'custom', '--json']))
    for (const key of [...Object.keys(BY_NAME), 'custom.admin_note'])
      expect(custom[key.slice('custom.'.length)], key).to.equal('[redacted]')
    const rcon = JSON.parse(await ok(data, ['setting', 'get', 'custom.rcon', '--json']))
    expect(rcon).to.deep.equal({ host: 'play.example', port: 19132, password: '[redacted]' })
    expect(JSON.parse(await ok(data, ['setting', 'get', 'custom.links', '--json']))).to.deep.equal({
      feed: 'https://bob:[redacted]@example.com/feed',
    })
    for (const args of [
      ['setting', 'list'],
      ['setting', 'list', '--json'],
    ]) {
      const shown = await ok(data, args)
      expectNone(shown, secrets, args.join(' '))
      expect(shown).to.contain('[redacted]').and.to.contain('play.example')
    }
    for (const args of [['events'], ['events', '--json']]) expectNone(await ok(data, args), secrets, args.join(' '))

    // The explicit way to read one: the data directory's own user asks for it by name.
    expect(await ok(data, ['setting', 'get', 'custom.admin_note', '--reveal'])).to.equal('flagged-secret-2\n')
    expect(await ok(data, ['setting', 'get', 'custom.db_password', '--reveal'])).to.equal('hunter2-db\n')
    await ok(data, ['db', 'rebuild'])
    expect(JSON.parse(await ok(data, ['setting', 'get', 'custom.rcon', '--reveal', '--json']))).to.deep.equal(NESTED)
    expect(JSON.parse(await ok(data, ['setting', 'get', 'custom.links', '--reveal', '--json']))).to.deep.equal(
      URL_VALUE,
    )
    expect(await ok(data, ['db', 'check'])).to.contain('equal to a replay')
    // What an output shows cannot be stored back over the secret.
    const copied = await cliIn(data, ['setting', 'set', 'custom.rcon', JSON.stringify(rcon)])
    expect(copied.code).to.equal(64)
    expect(copied.stderr).to.contain('SM_ERR_SETTINGS_INVALID_VALUE').and.to.contain('placeholder')
    expect(JSON.parse(await ok(data, ['setting', 'get', 'custom.rcon', '--reveal', '--json']))).to.deep.equal(NESTED)
    // Still secret after the replay: the mark is a fact of the log.
    expect(await ok(data, ['setting', 'get', 'custom.admin_note'])).to.equal('[redacted]\n')
    expectNone(readFileSync(join(data, 'logs', 'server-manager.log'), 'utf8'), secrets, 'the log file')
  })

  it('a running manager: the settings routes, GET /api/events, hook payloads, onAnyEvent and `events` hide secrets a plugin declared, an admin flagged over HTTP, or named; ?reveal=true needs an admin session, never a token', async () => {
    const data = join(tempDir(), 'data')
    const spy = join(tempDir(), 'spy.jsonl')
    const own = join(tempDir(), 'own.jsonl')
    writePlugins(data, {
      'spy.ts': `import { appendFileSync } from 'node:fs'
import { PluginBase } from 'server-manager'
export default class Spy extends PluginBase {
  static version = '1.0.0'
  static secretSettings = ['rcon']
  async afterSettingUpdate(payload: { key: string }) {
    appendFileSync(${JSON.stringify(spy)}, JSON.stringify({ hook: payload }) + '\\n')
    if (payload.key !== 'custom.rcon') return
    // Its own declared secret comes back in full; someone else's is refused.
    const own = await this.api.getGlobalSetting('custom.rcon')
    const other = await this.api.getGlobalSetting('custom.pin').catch((e: { code: string }) => e.code)
    appendFileSync(${JSON.stringify(own)}, JSON.stringify({ own, other }) + '\\n')
  }
  onAnyEvent(event: string, payload: unknown) { appendFileSync(${JSON.stringify(spy)}, JSON.stringify({ event, payload }) + '\\n') }
}
`,
    })
    await ok(data, ['plugin', 'enable', 'spy'])
    await ok(data, ['setting', 'set', 'web.port', '0'])
    await ok(data, ['user', 'create', 'boss', '--role', 'admin', '--password-stdin'], 'a long password\n')
    const manager = await spawnManager(data)
    try {
      await waitForLine(manager, /^ready in \d+ ms/).catch((error) => {
        manager.kill('SIGKILL')
        throw error
      })
      const { url } = JSON.parse(await ok(data, ['web', 'status', '--json'])) as { url: string }
      const session = await signIn(url, 'boss', 'a long password')
      const token = (await ok(data, ['token', 'create', 'ci', '--role', 'admin'])).trim().split('\n')[0] as string

      // custom.rcon has no secret-looking name: only the plugin's declaration hides it.
      await ok(data, ['setting', 'set', 'custom.rcon', '{"host":"h","word":"declared-secret-1"}'])
      const put = await http(`${url}/api/settings/custom.shared_note`, {
        method: 'PUT',
        token: session,
        body: { value: 'http-flagged-1', secret: true },
      })
      expect(put.status, put.text).to.equal(200)
      await ok(data, ['setting', 'set', 'custom.pin', '2468-pin'])
      const secrets = ['declared-secret-1', 'http-flagged-1', '2468-pin']
      expectNone(put.text, secrets, 'PUT /api/settings')

      const all = await http(`${url}/api/settings`, { token: session })
      expect(all.status).to.equal(200)
      expectNone(all.text, secrets, 'GET /api/settings')
      expect(all.json.settings.custom).to.include({ rcon: '[redacted]', shared_note: '[redacted]', pin: '[redacted]' })
      const events = await http(`${url}/api/events?limit=1000`, { token: session })
      expect(events.status).to.equal(200)
      expectNone(events.text, secrets, 'GET /api/events')
      expectNone(await ok(data, ['events', '--json']), secrets, 'events --json')
      expectNone(await ok(data, ['setting', 'list', '--json']), secrets, 'setting list --json (client)')

      const one = await http(`${url}/api/settings/custom.rcon`, { token: session })
      expect(one.json).to.deep.include({ value: '[redacted]', secret: true })
      const byToken = await http(`${url}/api/settings/custom.rcon?reveal=true`, { token })
      expect(byToken.status).to.equal(403)
      expect(byToken.json.code).to.equal('SM_ERR_AUTH_FORBIDDEN')
      expectNone(byToken.text, secrets, 'a refused reveal')
      const revealed = await http(`${url}/api/settings/custom.rcon?reveal=true`, { token: session })
      expect(revealed.json.value).to.deep.equal({ host: 'h', word: 'declared-secret-1' })
      const shared = await http(`${url}/api/settings/custom.shared_note?reveal=true`, { token: session })
      expect(shared.json.value).to.equal('http-flagged-1')
      expect(await ok(data, ['setting', 'get', 'custom.shared_note', '--reveal'])).to.equal('http-flagged-1\n')
    } finally {
      if (manager.exitCode === null) expect(await stop(manager)).to.equal(0)
    }
    expect(existsSync(spy)).to.equal(true)
    expect(
      readFileSync(own, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line)),
    ).to.deep.equal([{ own: { host: 'h', word: 'declared-secret-1' }, other: 'SM_ERR_PLUGIN_FORBIDDEN' }])
    const seen = readFileSync(spy, 'utf8')
    expect(seen).to.contain('custom.rcon').and.to.contain('custom.shared_note').and.to.contain('[redacted]')
    expectNone(seen, ['declared-secret-1', 'http-flagged-1', '2468-pin'], 'hook payloads')
    expectNone(
      readFileSync(join(data, 'logs', 'server-manager.log'), 'utf8'),
      ['declared-secret-1', 'http-flagged-1', '2468-pin'],
      'the log file',
    )
  })
})
