import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process'
import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { run, waitForLine } from './run'
import { afterItsUser } from './run-end'
import { tempDir } from './temp-dir'

/** Debian's nats-server (test/ensure-test-tools.sh installs it), or $SM_NATS_SERVER. */
export function natsServerBinary(): string {
  for (const candidate of [process.env.SM_NATS_SERVER, '/usr/sbin/nats-server', '/usr/bin/nats-server'])
    if (candidate && existsSync(candidate)) return candidate
  throw new Error('nats-server is not installed: run test/ensure-test-tools.sh (or set SM_NATS_SERVER)')
}

export interface Permissions {
  readonly publish: readonly string[]
  readonly subscribe: readonly string[]
  /** May answer requests sent to it (an agent answering the manager). */
  readonly allowResponses?: boolean
}

/** A user of the test broker: its name is its password's prefix, so tests read clearly. */
export interface BrokerUser {
  readonly user: string
  readonly password: string
}

export interface Broker {
  readonly url: string
  readonly port: number
  readonly users: Readonly<Record<string, BrokerUser>>
  /** Stops the broker (the link goes down for everyone on it). */
  stop(): Promise<void>
  /** Starts it again on the same port, with the same users. */
  start(): Promise<void>
}

/** The manager's permissions on a broker: everything of its prefix, and its inboxes. */
export const MANAGER_PERMISSIONS: Permissions = { publish: ['sm.>', '_INBOX.>'], subscribe: ['sm.>', '_INBOX.>'] }
/** A person's CLI elsewhere: requests and events, its inboxes. */
export const CLIENT_PERMISSIONS: Permissions = { publish: ['sm.req.>'], subscribe: ['sm.evt.>', '_INBOX.>'] }

/**
 * A real nats-server on loopback (a free port, or `port`), with password users and their
 * permissions, and any user `entries` as they go in its configuration (an nkey user from
 * `agent credentials`); stopped when the test (or hook) that started it ends.
 */
export async function startBroker(
  users: Readonly<Record<string, Permissions>>,
  options: { port?: number; entries?: readonly object[]; tls?: { readonly cert: string; readonly key: string } } = {},
): Promise<Broker> {
  const port = options.port ?? 0
  const dir = tempDir('sm-nats-')
  const accounts = Object.fromEntries(
    Object.keys(users).map((name) => [name, { user: name, password: `${name}-password` }]),
  )
  let child: ChildProcessWithoutNullStreams | undefined
  let bound = port
  const start = async () => {
    const config = join(dir, 'nats.conf')
    writeFileSync(config, brokerConfig(bound === 0 ? -1 : bound, users, accounts, options.entries ?? [], options.tls))
    const process_ = spawn(natsServerBinary(), ['-c', config], { stdio: 'pipe' })
    child = process_
    let said = ''
    process_.stderr.on('data', (chunk: Buffer) => {
      said += chunk
    })
    await waitForLine(process_, /Server is ready/, { stream: 'stderr' })
    const listening = /Listening for client connections on \S+:(\d+)/.exec(said)
    if (!listening) throw new Error(`nats-server did not say its port:\n${said}`)
    bound = Number(listening[1])
  }
  const stop = async () => {
    const running = child
    child = undefined
    if (!running || running.exitCode !== null || running.signalCode !== null) return
    const exited = new Promise((resolve) => running.once('exit', resolve))
    running.kill('SIGKILL')
    await exited
  }
  afterItsUser(stop)
  await start()
  return {
    get url() {
      return `nats://127.0.0.1:${bound}`
    },
    get port() {
      return bound
    },
    users: accounts,
    stop,
    start,
  }
}

function brokerConfig(
  port: number,
  users: Readonly<Record<string, Permissions>>,
  accounts: Readonly<Record<string, BrokerUser>>,
  entries: readonly object[],
  tls: { readonly cert: string; readonly key: string } | undefined,
): string {
  const list = Object.entries(users).map(([name, p]) => ({
    user: accounts[name]?.user,
    password: accounts[name]?.password,
    permissions: {
      publish: p.publish,
      subscribe: p.subscribe,
      ...(p.allowResponses ? { allow_responses: { max: 1, expires: '1h' } } : {}),
    },
  }))
  // nats-server reads JSON as its configuration format.
  const config = {
    listen: `127.0.0.1:${port}`,
    server_name: 'sm_test',
    authorization: { users: [...list, ...entries] },
    ...(tls ? { tls: { cert_file: tls.cert, key_file: tls.key } } : {}),
  }
  return `${JSON.stringify(config, null, 2)}\n`
}

/**
 * A certificate authority and a broker certificate it signed, for 127.0.0.1 and localhost (nats.js
 * checks the name `localhost` for a loopback address), made with openssl in a fresh directory.
 */
export async function brokerCertificates(): Promise<{ ca: string; cert: string; key: string }> {
  const dir = tempDir('sm-tls-')
  const at = (name: string) => join(dir, name)
  const steps = [
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      at('ca.key'),
      '-out',
      at('ca.pem'),
      '-days',
      '2',
      '-subj',
      '/CN=sm test CA',
    ],
    [
      'req',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      at('broker.key'),
      '-out',
      at('broker.csr'),
      '-subj',
      '/CN=localhost',
    ],
    [
      'x509',
      '-req',
      '-in',
      at('broker.csr'),
      '-CA',
      at('ca.pem'),
      '-CAkey',
      at('ca.key'),
      '-CAcreateserial',
      '-out',
      at('broker.pem'),
      '-days',
      '2',
      '-extfile',
      at('san.cnf'),
    ],
  ]
  writeFileSync(at('san.cnf'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n')
  for (const args of steps) {
    const done = await run('openssl', args)
    if (done.code !== 0) throw new Error(`openssl ${args[0]} failed: ${done.stderr}`)
  }
  return { ca: at('ca.pem'), cert: at('broker.pem'), key: at('broker.key') }
}
