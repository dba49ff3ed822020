import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import { withoutSecrets } from '../../../lib/secrets'
import { isLogLevel } from '../../../services/log'
import { deepMerge } from '../../../services/settings/dot-path'
import { cliIn } from '../../helpers/cli-in-process'
import { tempDir } from '../../helpers/temp-dir'
import { http, startWeb } from '../../helpers/web'

/** JavaScript's own property names, each a key nobody declared. */
const NAMES = [
  'hasOwnProperty',
  'valueOf',
  'propertyIsEnumerable',
  'toLocaleString',
  'isPrototypeOf',
  '__proto__',
  'constructor',
  'toString',
]

const PROPERTIES = 'server-name=Test\nmax-players=10\n'

function bedrockDir(): string {
  const dir = join(tempDir(), 'bds')
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'bedrock_server'), '#!/bin/sh\n', { mode: 0o755 })
  writeFileSync(join(dir, 'server.properties'), PROPERTIES)
  return dir
}

describe("JavaScript's own property names as keys (issue 18 item 13)", function () {
  this.timeout(120_000)

  it('PUT /api/servers/<s>/properties answers 422 for each, as for any unknown key, and writes nothing', async () => {
    // A body with a `__proto__` key is refused whole by the JSON parser (400, coded) before any route runs.
    const web = await startWeb()
    try {
      const dir = bedrockDir()
      await web.manager.bus.request('servers:add', { name: 's', dir })
      for (const name of [...NAMES, 'max-playerz']) {
        // Sent as raw JSON: `__proto__` is then an ordinary key of the body, as from any client.
        const reply = await http(`${web.url}/api/servers/s/properties`, {
          method: 'PUT',
          token: web.admin,
          raw: `{"properties":{${JSON.stringify(name)}:"1"}}`,
        })
        const refused = name === '__proto__' ? [400, 'SM_ERR_WEB_BAD_JSON'] : [422, 'SM_ERR_SERVER_PROPERTY_INVALID']
        expect(reply.status, `${name}: ${reply.text}`).to.equal(refused[0])
        expect(reply.json, name).to.include({ status: 'error', code: refused[1] })
      }
      expect(readFileSync(join(dir, 'server.properties'), 'utf8')).to.equal(PROPERTIES)
      const read = await http(`${web.url}/api/servers/s/properties`, { token: web.admin })
      expect(read.json.properties).to.deep.equal({ 'server-name': 'Test', 'max-players': '10' })
      const good = await http(`${web.url}/api/servers/s/properties`, {
        method: 'PUT',
        token: web.admin,
        body: { properties: { 'max-players': 12 } },
      })
      expect(good.status).to.equal(200)
    } finally {
      await web.manager.stop()
    }
  })

  it('`server config` and `server properties` refuse each with a coded error and exit 64, never SM_ERR_INTERNAL', async () => {
    const data = tempDir()
    const dir = bedrockDir()
    expect((await cliIn(data, ['server', 'add', 's', '--dir', dir])).code).to.equal(0)
    const runs = NAMES.flatMap((name) => [
      { args: ['server', 'config', 's', name, '1'], code: 'SM_ERR_SERVER_SETTING_INVALID' },
      { args: ['server', 'config', 's', name], code: 'SM_ERR_SERVER_SETTING_INVALID' },
      { args: ['server', 'properties', 's', name, '1'], code: 'SM_ERR_SERVER_PROPERTY_INVALID' },
      { args: ['server', 'properties', 's', name], code: 'SM_ERR_SERVER_PROPERTY_INVALID' },
    ])
    for (const { args, code } of runs) {
      const r = await cliIn(data, args)
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).to.equal(64)
      expect(r.stderr, args.join(' ')).to.contain(`[${code}]`)
    }
    expect(readFileSync(join(dir, 'server.properties'), 'utf8')).to.equal(PROPERTIES)
    const config = JSON.parse((await cliIn(data, ['server', 'config', 's', '--json'])).stdout)
    expect(Object.keys(config)).to.deep.equal([
      'autostart',
      'restart.enabled',
      'restart.max_restarts',
      'restart.min_uptime_s',
      'backup.hot',
      'retention.backups',
      'retention.backup_days',
    ])
  })

  it('keeps a `__proto__` key as data where values are copied, merged or checked', () => {
    const sent = JSON.parse('{"__proto__":{"isAdmin":true},"password":"x","a":1}')
    const shown = withoutSecrets(sent) as Record<string, unknown>
    expect(Object.getPrototypeOf(shown)).to.equal(Object.prototype)
    expect(shown.isAdmin).to.equal(undefined)
    expect(Object.keys(shown)).to.deep.equal(['__proto__', 'password', 'a'])
    const merged = deepMerge({ a: 1 }, JSON.parse('{"__proto__":{"isAdmin":true},"b":2}')) as Record<string, unknown>
    expect(merged.isAdmin).to.equal(undefined)
    expect(Object.keys(merged)).to.deep.equal(['a', '__proto__', 'b'])
    expect(deepMerge({}, { valueOf: { x: 1 } })).to.deep.equal({ valueOf: { x: 1 } })
    expect(NAMES.filter((name) => isLogLevel(name))).to.deep.equal([])
  })
})
