import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { type AddressInfo, connect as connectTcp, createServer, type Socket } from 'node:net'
import { join } from 'node:path'
import { natsServerBinary } from './nats-binary'
import { run, waitForLine } from './run'
import { afterItsUser } from './run-end'
import { tempDir } from './temp-dir'

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
  options: {
    port?: number
    entries?: readonly object[]
    tls?: { readonly cert: string; readonly key: string }
    /** The largest message it carries (nats-server's max_payload; its default is 1 MB). */
    maxPayload?: number
  } = {},
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
    writeFileSync(
      config,
      brokerConfig(bound === 0 ? -1 : bound, users, accounts, options.entries ?? [], options.tls, options.maxPayload),
    )
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
  maxPayload: number | undefined,
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
    ...(maxPayload ? { max_payload: maxPayload } : {}),
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

/** A TCP proxy on a loopback address of its own: one host's link to the broker, which a test cuts. */
export interface Link {
  /** `nats://<address>:<port>`: the broker as the host behind this link reaches it. */
  readonly url: string
  /** Cuts the link: every connection through it is torn down and no new one gets through. */
  cut(): Promise<void>
  /**
   * Cuts it silently, as a pulled cable does: connections stay open at both ends (no TCP close
   * tells anyone) but nothing gets through; what was sent meanwhile is delivered once it is mended.
   */
  stall(): void
  /** Mends it: new connections get through again, on the same address and port, and a stall ends. */
  mend(): Promise<void>
}

/**
 * A link from `address` (127.0.0.2, 127.0.0.3: Linux answers on all of 127/8) to the broker on
 * 127.0.0.1; closed when the test that made it ends.
 */
export async function brokerLink(address: string, broker: Broker): Promise<Link> {
  const sockets = new Set<Socket>()
  const server = createServer((client) => {
    const upstream = connectTcp(broker.port, '127.0.0.1')
    for (const socket of [client, upstream]) {
      sockets.add(socket)
      socket.on('error', () => {}) // a cut or the broker's stop: both ends are torn down below
      socket.on('close', () => {
        sockets.delete(socket)
        client.destroy()
        upstream.destroy()
      })
    }
    forward(client, upstream)
    forward(upstream, client)
  })
  // Bytes held while the link is stalled, and the writes that deliver them once it is mended.
  let stalled = false
  const held: (() => void)[] = []
  const forward = (from: Socket, to: Socket) =>
    from.on('data', (chunk: Buffer) => {
      if (stalled) held.push(() => to.write(chunk))
      else to.write(chunk)
    })
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once('error', reject)
      server.listen(port, address, () => {
        server.off('error', reject)
        resolve((server.address() as AddressInfo).port)
      })
    })
  const port = await listen(0)
  const cut = async () => {
    if (!server.listening) return
    const closed = new Promise<void>((resolve) => server.close(() => resolve()))
    for (const socket of sockets) socket.destroy()
    await closed
  }
  afterItsUser(cut)
  return {
    url: `nats://${address}:${port}`,
    cut,
    stall() {
      stalled = true
    },
    async mend() {
      stalled = false
      for (const write of held.splice(0)) write()
      if (!server.listening) await listen(port)
    },
  }
}

/**
 * The heartbeat a host agent publishes (`sm.agent.<name>.hb`), for a test's stand-in host that
 * speaks the protocol by hand: no servers, tiny numbers, `lastSeq` the last fact it holds.
 */
export function fakeHostBeat(name: string, at: string, lastSeq = 0) {
  return {
    name,
    hostname: 'fake',
    pid: 1,
    version: '0',
    node: 'v20',
    startedAt: at,
    load: [0, 0, 0],
    memory: { total: 1, free: 1 },
    disk: { total: 1, free: 1 },
    rss: 1,
    servers: [],
    lastSeq,
    at,
  }
}
