import { expect } from 'chai'
import { isSecretKey, isSecretName, withoutSecretSettings, withoutSecrets, withoutUrlSecrets } from '../../lib/secrets'
import { run } from '../helpers/run'

describe('lib/secrets: one redaction rule', () => {
  it('knows secret names in any case style, and leaves look-alikes alone', () => {
    const secret = ['rcon_pw', 'rconPw', 'pin', 'admin-pin', 'passwd', 'api_key', 'apiKey', 'ApiKey', 'webhook_url']
    secret.push('discordWebhook', 'credentials', 'db_pass', 'client_secret', 'otp', 'database_dsn', 'license_key')
    for (const name of secret) expect(isSecretName(name), name).to.equal(true)
    const plain = ['spin', 'ping', 'pinned', 'opinion', 'mapping', 'port', 'passive', 'compass', 'keyboard', 'url']
    for (const name of plain) expect(isSecretName(name), name).to.equal(false)
  })

  it('keeps every real secret key hidden, and shows the settings that only say something about a secret', () => {
    const secrets = `custom.rcon_password custom.rconPassword custom.db.password custom.smtp.pass custom.admin_pin
      custom.api_key custom.discord_webhook custom.bot_token custom.jwt_secret custom.client_secret custom.private_key
      custom.ssh_key custom.license_key custom.session_id custom.database_dsn custom.connection_string custom.otp
      custom.credentials custom.password_hash custom.token_secret`.split(/\s+/)
    for (const key of secrets) {
      expect(isSecretKey(key), key).to.equal(true)
      expect(withoutSecretSettings('the value', key), key).to.equal('[redacted]')
    }
    // What a setting says about a secret (a length, a lifetime, a rule, a flag) is no secret.
    const about = `auth.password_min_length custom.passwordMaxLength custom.pin_length custom.token_ttl_s
      custom.session_key_lifetime_hours custom.password_max_age_days custom.api_key_required custom.webhook_timeout_ms
      custom.password_policy custom.login_max_failures`.split(/\s+/)
    for (const key of about) {
      expect(isSecretKey(key), key).to.equal(false)
      expect(withoutSecretSettings(8, key), key).to.equal(8)
    }
    // In a change's payload too (hooks, the event log, the live stream).
    expect(withoutSecrets({ key: 'auth.password_min_length', value: 10, previous: 8 })).to.deep.equal({
      key: 'auth.password_min_length',
      value: 10,
      previous: 8,
    })
  })

  it('hides the password of a URL and secret query parameters in any text', () => {
    expect(withoutUrlSecrets('see https://bob:hunter2@example.com/x?a=1&token=t0k&sig=s1 now')).to.equal(
      'see https://bob:[redacted]@example.com/x?a=1&token=[redacted]&sig=[redacted] now',
    )
    expect(withoutUrlSecrets('no url: user:pw@host')).to.equal('no url: user:pw@host')
    expect(withoutSecrets({ feed: 'redis://:pw1@localhost:6379' })).to.deep.equal({
      feed: 'redis://:[redacted]@localhost:6379',
    })
  })

  it('hides a secret nested in a setting value, by name at any depth, in changes and in the whole tree', () => {
    expect(withoutSecrets({ key: 'custom.rcon', value: { host: 'h', pw: 'x' }, previous: { pw: 'y' } })).to.deep.equal({
      key: 'custom.rcon',
      value: { host: 'h', pw: '[redacted]' },
      previous: { pw: '[redacted]' },
    })
    const tree = { custom: { rcon: { host: 'h', auth: { password: 'p' } }, pin: 1 }, web: { port: 1 } }
    expect(withoutSecretSettings(tree, '')).to.deep.equal({
      custom: { rcon: { host: 'h', auth: { password: '[redacted]' } }, pin: '[redacted]' },
      web: { port: 1 },
    })
    expect(withoutSecretSettings('x', 'custom.db_password')).to.equal('[redacted]')
  })

  it('hides a setting declared `secret: true` (and what is under it) in every output of the process', async () => {
    // In its own process: a key declared secret to a kernel stays secret in every output of the
    // process (secrecy only widens), which would reach this one's other tests.
    const script = `
      const { Catalogue, defineSettings } = require('./dist/kernel')
      const s = require('./dist/lib/secrets')
      new Catalogue().add([defineSettings('probe', { 'probe.remote': { default: {}, summary: 's', secret: true } })], 'probe')
      console.log(JSON.stringify([
        s.withoutSecrets({ key: 'probe.remote', value: { host: 'h' } }),
        s.withoutSecrets({ key: 'probe', value: { remote: { host: 'h' }, other: 1 } }),
        s.withoutSecretSettings({ probe: { remote: { host: 'h' } } }, ''),
        s.isSecretKey('probe.remote.host'),
      ]))`
    const result = await run(process.execPath, ['-e', script])
    expect(result.code, result.stderr).to.equal(0)
    expect(JSON.parse(result.stdout)).to.deep.equal([
      { key: 'probe.remote', value: '[redacted]' },
      { key: 'probe', value: { remote: '[redacted]', other: 1 } },
      { probe: { remote: '[redacted]' } },
      true,
    ])
  })
})
