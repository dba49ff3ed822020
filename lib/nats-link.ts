import { readFileSync } from 'node:fs'
import {
  type ConnectionOptions,
  connect,
  credsAuthenticator,
  type NatsConnection,
  nkeyAuthenticator,
  usernamePasswordAuthenticator,
} from '@nats-io/transport-node'
import { reasonOf, SmError } from '../kernel/errors'
import { natsUrlProblem } from './nats-subjects'

/** How to reach the broker: the nats.* settings (or a client's environment). */
export interface NatsConfig {
  /** One URL or several, comma-separated; no credentials in it. */
  readonly url: string
  readonly user?: string
  readonly password?: string
  /** A `.creds` file (JWT and seed) or a file holding an nkey seed. */
  readonly credentials?: string
  /** A CA certificate (PEM) file: TLS on, the broker checked against it. */
  readonly tlsCa?: string
  /** The first token of every subject (nats.prefix). */
  readonly prefix: string
}

/**
 * The connection options for `config`, read and checked now: a bad URL or an unreadable,
 * malformed credentials file is SM_ERR_NATS_CONFIG before anything connects.
 */
function natsOptions(config: NatsConfig, name: string, extra: Partial<ConnectionOptions> = {}): ConnectionOptions {
  const urlProblem = natsUrlProblem(config.url)
  if (urlProblem || config.url === '')
    throw new SmError('SM_ERR_NATS_CONFIG', { setting: 'nats.url', reason: urlProblem ?? 'it is empty' })
  const servers = config.url.split(',').map((s) => s.trim())
  const options: ConnectionOptions = { servers, name, ...extra }
  if (config.credentials) options.authenticator = credentialsOf(config.credentials)
  else if (config.user) options.authenticator = usernamePasswordAuthenticator(config.user, config.password ?? '')
  if (config.tlsCa) {
    readSetting(config.tlsCa, 'nats.tls_ca')
    options.tls = { caFile: config.tlsCa }
  } else if (servers.some((s) => s.startsWith('tls://'))) options.tls = {}
  return options
}

/** An authenticator from a `.creds` file or an nkey seed file. */
function credentialsOf(path: string) {
  const text = readSetting(path, 'nats.creds_file')
  if (text.includes('BEGIN NATS USER JWT')) return credsAuthenticator(new TextEncoder().encode(text))
  const seed = text.trim()
  if (/^SU[A-Z2-7]{56}$/.test(seed)) return nkeyAuthenticator(new TextEncoder().encode(seed))
  throw new SmError('SM_ERR_NATS_CONFIG', {
    setting: 'nats.creds_file',
    reason: `'${path}' holds neither a NATS .creds file nor a user nkey seed (SU...)`,
  })
}

/** The text of the file a setting names, or SM_ERR_NATS_CONFIG saying why it cannot be read. */
function readSetting(path: string, setting: string): string {
  try {
    return readFileSync(path, 'utf8')
  } catch (error) {
    throw new SmError('SM_ERR_NATS_CONFIG', { setting, reason: `cannot read '${path}': ${reasonOf(error)}` })
  }
}

/**
 * Connects once (no waiting for a broker that is not there): the connection, or
 * SM_ERR_NATS_UNREACHABLE saying why. Once connected, it reconnects by itself for as long as it lives.
 */
export async function connectNats(
  config: NatsConfig,
  name: string,
  extra: Partial<ConnectionOptions> = {},
): Promise<NatsConnection> {
  // ignoreAuthErrorAbort: a broker that refuses us twice while its users are being edited does
  // not end the connection for good; it goes on reconnecting.
  const options = natsOptions(config, name, {
    maxReconnectAttempts: -1,
    reconnectTimeWait: 1_000,
    ignoreAuthErrorAbort: true,
    ...extra,
  })
  try {
    return await connect(options)
  } catch (error) {
    throw new SmError('SM_ERR_NATS_UNREACHABLE', { url: config.url, reason: natsReason(error) }, { cause: error })
  }
}

/** A NATS error's reason in a few words. */
export function natsReason(error: unknown): string {
  const text = reasonOf(error)
  if (/authorization violation|authentication/i.test(text))
    return "the broker refused our credentials: check them against its users (the manager's nats.user and nats.password, or nats.creds_file, read at its start: restart it after a change; an agent's --credentials or SM_NATS_USER and SM_NATS_PASSWORD)"
  if (/certificate|self[- ]signed|altnames/i.test(text))
    return `its TLS certificate is not trusted (${text}): give the CA that signed it (nats.tls_ca, or the agent's --tls-ca), and reach it by a name the certificate holds`
  return text
}
