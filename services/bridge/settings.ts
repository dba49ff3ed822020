import { defineSettings } from '../../kernel/setting-catalogue'
import { isSubjectToken, natsUrlProblem } from '../../lib/nats-subjects'

/** The bridge's NATS transport (docs/settings.md). Empty nats.url: one machine, no broker. */
export const bridgeSettings = defineSettings('bridge', {
  'nats.url': {
    default: '',
    summary:
      'the NATS broker the manager joins (nats://host:4222, or tls://; several separated by commas); empty: no broker, this machine only. Credentials go in nats.user and nats.password or nats.creds_file, not in the URL',
    rule: (value) => (typeof value === 'string' ? natsUrlProblem(value) : 'it must be a string'),
  },
  'nats.user': { default: '', summary: 'the user name the manager connects to the broker with (with nats.password)' },
  'nats.password': { default: '', summary: "that user's password", secret: true },
  'nats.creds_file': {
    default: '',
    summary: "a file with the manager's NATS credentials instead: a .creds file (JWT and seed) or an nkey seed",
  },
  'nats.tls_ca': {
    default: '',
    summary: "a PEM file of the certificate authority that signed the broker's certificate (turns TLS on)",
  },
  'nats.prefix': {
    default: 'sm',
    summary:
      "the first token of every subject: managers sharing one broker each need their own (letters, digits, '_', '-')",
    rule: (value) =>
      typeof value === 'string' && isSubjectToken(value)
        ? undefined
        : "it must be one subject token: letters, digits, '_' and '-'",
  },
})
