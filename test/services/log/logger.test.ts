import { readFileSync, unlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import { withoutSecrets } from '../../../lib/secrets'
import { createLogger } from '../../../services/log'
import { tempDir } from '../../helpers/temp-dir'

const capture = () => {
  const lines: string[] = []
  return { lines, console: { write: (text: string) => lines.push(text) } }
}

describe('services/log', () => {
  it('writes JSON lines to the file and readable lines to the console, tagged per child', () => {
    const file = join(tempDir(), 'logs', 'server-manager.log')
    const out = capture()
    const logger = createLogger({ file, console: out.console, consoleLevel: 'warn', fileLevel: 'info' })
    logger.child('events').info('opened', { path: '/x' })
    logger.child('plugin:greeter').warn('slow hook', { ms: 12 })
    logger.debug('dropped everywhere')
    logger.close()
    const lines = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
    expect(lines.map(({ time: _t, ...rest }) => rest)).to.deep.equal([
      { level: 'info', name: 'events', message: 'opened', path: '/x' },
      { level: 'warn', name: 'plugin:greeter', message: 'slow hook', ms: 12 },
    ])
    expect(out.lines).to.have.length(1)
    expect(out.lines[0]).to.match(/^\d\d:\d\d:\d\d\.\d{3} WARN {2}\[plugin:greeter\] slow hook ms=12\n$/)
  })

  it('never writes a secret-looking field, at any depth', () => {
    const file = join(tempDir(), 'sm.log')
    const out = capture()
    const logger = createLogger({ file, console: out.console, consoleLevel: 'info' })
    logger.info('login', { user: 'alice', password: 'hunter2', nested: { jwt_secret_key: 'abc', apiKey: 'k', ok: 1 } })
    logger.close()
    const text = readFileSync(file, 'utf8') + out.lines.join('')
    for (const secret of ['hunter2', '"abc"', '"k"']) expect(text).to.not.contain(secret)
    expect(withoutSecrets({ list: [{ token: 't' }] })).to.deep.equal({ list: [{ token: '[redacted]' }] })
    expect(withoutSecrets({ web: { port: 1, jwt_secret_key: 'k' } }, 'drop')).to.deep.equal({ web: { port: 1 } })
  })

  it('hides private_key and friends, key/value pairs with a secret key, and anything past any depth', () => {
    let deep: Record<string, unknown> = { private_key: 'PEM' }
    for (let i = 0; i < 50; i++) deep = { level: deep }
    const shown = JSON.stringify(withoutSecrets(deep))
    expect(shown).to.not.contain('PEM')
    expect(shown).to.contain('[redacted]')
    for (const name of ['private_key', 'privateKey', 'ssh_key', 'client_secret', 'db_pass', 'dbPassword', 'session_id'])
      expect(withoutSecrets({ [name]: 'x' }), name).to.deep.equal({ [name]: '[redacted]' })
    for (const name of ['port', 'passive', 'compass', 'hash', 'keyboard', 'monkey'])
      expect(withoutSecrets({ [name]: 'x' }), name).to.deep.equal({ [name]: 'x' })
    expect(withoutSecrets({ key: 'custom.db_password', value: 'hunter2', previous: 'old' })).to.deep.equal({
      key: 'custom.db_password',
      value: '[redacted]',
      previous: '[redacted]',
    })
    const plain = { key: 'web.port', value: 1 }
    expect(withoutSecrets(plain)).to.equal(plain)
    const cyclic: Record<string, unknown> = { token: 't' }
    cyclic.self = cyclic
    expect(withoutSecrets(cyclic)).to.deep.equal({ token: '[redacted]', self: '[cycle]' })
    let tooDeep: unknown = 'secret-at-the-bottom'
    for (let i = 0; i < 300; i++) tooDeep = [tooDeep]
    expect(JSON.stringify(withoutSecrets(tooDeep))).to.not.contain('secret-at-the-bottom')
  })

  it("never lets a logged field overwrite the record's own fields", () => {
    const file = join(tempDir(), 'sm.log')
    const logger = createLogger({ file, console: capture().console })
    logger.child('plugin:x').info('real message', { message: 'fake', level: 'error', time: 0, name: 'y', extra: 1 })
    logger.close()
    const record = JSON.parse(readFileSync(file, 'utf8'))
    expect(record).to.include({ message: 'real message', level: 'info', name: 'plugin:x', extra: 1 })
    expect(record.time).to.match(/^\d{4}-/)
    expect(record.fields).to.deep.equal({ message: 'fake', level: 'error', time: 0, name: 'y' })
  })

  it('falls back to the console, once, when the file cannot be written', () => {
    const dir = tempDir()
    writeFileSync(join(dir, 'blocker'), '')
    const out = capture()
    const logger = createLogger({ file: join(dir, 'blocker', 'sm.log'), console: out.console, consoleLevel: 'info' })
    logger.info('one')
    logger.info('two')
    expect(out.lines.filter((line) => line.includes('cannot be written'))).to.have.length(1)
    expect(out.lines.filter((line) => / (one|two)\n$/.test(line))).to.have.length(2)
  })

  it('writes again once it can, and records in the file how many lines were dropped', () => {
    const dir = tempDir()
    writeFileSync(join(dir, 'blocker'), '')
    const out = capture()
    const file = join(dir, 'blocker', 'sm.log')
    const logger = createLogger({ file, console: out.console, consoleLevel: 'info' })
    logger.info('one')
    logger.info('two')
    unlinkSync(join(dir, 'blocker'))
    logger.child('events').info('three')
    logger.close()
    const records = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
    expect(records.map((r) => r.name)).to.deep.equal(['events', 'log'])
    expect(records[1]).to.include({ level: 'warn' })
    expect(records[1].message).to.match(/^the log file is written again; 2 lines were dropped \(EEXIST/)
    expect(out.lines.at(-1)).to.match(/INFO {2}\[log\] the log file is written again; 2 lines were dropped/)
  })

  it('rotates a file that grew past its limit when it is opened', () => {
    const dir = tempDir()
    const file = join(dir, 'sm.log')
    writeFileSync(file, 'x'.repeat(11 * 1024 * 1024))
    const logger = createLogger({ file, console: capture().console })
    logger.info('fresh')
    logger.close()
    expect(readFileSync(`${file}.1`, 'utf8')).to.have.length(11 * 1024 * 1024)
    expect(readFileSync(file, 'utf8')).to.contain('"fresh"')
  })
})
