import { hostname } from 'node:os'
import type { Msg, NatsConnection } from '@nats-io/transport-node'
import { type BusScope, type Disposable, type Logger, SmError, toSmError } from '../../kernel'
import { connectNats, type NatsConfig } from '../../lib/nats-link'
import { allSubjects, nameOfSubject, subjectOf } from '../../lib/nats-subjects'
import { answer, answerJson, BRIDGE_ACTOR } from './answer'
import { type Host, hostReport, type NatsStatus } from './contract'

/** How long the manager waits before trying an unreachable broker again (nats.js reconnects by itself once connected). */
const RETRY_MS = 2_000
/** A host agent that has not beaten for this long is offline (three of its 5 s beats). */
const HOST_SILENT_MS = 15_000

/**
 * The bridge's NATS transport, in the manager: answers every `<prefix>.req.<ns>.<name>` request
 * as the local socket does (same commands, replies, coded errors, actors), and publishes every
 * bus event on `<prefix>.evt.<ns>.<name>`. A broker that is not there does not stop the manager:
 * it says so (SM_ERR_NATS_UNREACHABLE, in the log and in `nats:status`) and keeps trying.
 */
export class NatsBridge {
  readonly #scope: BusScope
  readonly #logger: Logger
  readonly #config: NatsConfig
  #connection: NatsConnection | undefined
  #events: Disposable | undefined
  #retry: NodeJS.Timeout | undefined
  #silence: NodeJS.Timeout | undefined
  /** Every host agent heard from since the start, by name. */
  readonly #hosts = new Map<string, Host>()
  #stopped = false
  #state: { connected: boolean; since: string; reason?: string; server?: string }
  #open: () => void = () => {}
  readonly #ready = new Promise<void>((resolve) => {
    this.#open = resolve
  })

  constructor(scope: BusScope, logger: Logger, config: NatsConfig) {
    this.#scope = scope
    this.#logger = logger
    this.#config = config
    this.#state = { connected: false, since: new Date().toISOString(), reason: 'connecting' }
  }

  /**
   * Tries the broker once (so the start can say whether the manager is on it), then keeps trying
   * in the background; requests are answered once `open` is called (every service has started).
   */
  begin(): Promise<void> {
    return this.#attempt()
  }

  open(): void {
    this.#open()
  }

  get status(): NatsStatus {
    return { configured: true, url: this.#config.url, prefix: this.#config.prefix, ...this.#state }
  }

  async close(): Promise<void> {
    this.#stopped = true
    clearTimeout(this.#retry)
    clearInterval(this.#silence)
    this.#events?.dispose()
    const connection = this.#connection
    this.#connection = undefined
    // Drain: replies to requests in flight go out before the connection closes.
    if (connection && !connection.isClosed()) await connection.drain().catch(() => connection.close())
  }

  async #attempt(): Promise<void> {
    let connection: NatsConnection
    try {
      connection = await connectNats(this.#config, `server-manager manager on ${hostname()}`, { timeout: 5_000 })
    } catch (error) {
      const failure = toSmError(error)
      if (this.#stopped) return
      if (this.#state.reason !== failure.message) {
        this.#logger.warn(`${failure.message} Trying again every ${RETRY_MS / 1000} s.`, { code: failure.code })
        this.#state = { connected: false, since: new Date().toISOString(), reason: failure.message }
      }
      this.#retry = setTimeout(() => void this.#attempt(), RETRY_MS)
      return
    }
    if (this.#stopped) return void (await connection.close())
    this.#connection = connection
    this.#changed(true)
    this.#logger.info(`nats: joined the broker at ${connection.getServer()} (subjects ${this.#config.prefix}.*)`)
    connection.subscribe(allSubjects(this.#config.prefix, 'req'), {
      queue: 'manager',
      callback: (error, message) => {
        if (error) return this.#logger.warn(`nats: the request subscription ended: ${error.message}`)
        void this.#request(message)
      },
    })
    this.#events = this.#scope.on('**', (payload, meta) => this.#publish(connection, meta.event, payload, meta))
    const agents = `${this.#config.prefix}.agent.*`
    connection.subscribe(`${agents}.hb`, { callback: (error, message) => void (error || this.#beat(message)) })
    connection.subscribe(`${agents}.bye`, {
      callback: (error, message) =>
        void (error || this.#gone(message.subject.split('.').at(-2) ?? '', 'it said goodbye')),
    })
    this.#silence = setInterval(() => this.#checkSilence(), HOST_SILENT_MS / 3)
    void this.#watch(connection)
  }

  /** Every host agent heard from, with its last figures. */
  get hosts(): Host[] {
    return [...this.#hosts.values()].sort((a, b) => a.name.localeCompare(b.name))
  }

  /** A host agent's beat: its report, checked (it comes from another machine), under the name its subject says. */
  #beat(message: Msg): void {
    const name = message.subject.split('.').at(-2) ?? ''
    let report: ReturnType<typeof hostReport.parse>
    try {
      report = hostReport.parse(message.json())
    } catch (error) {
      this.#logger.debug(`nats: a beat from host '${name}' is not a host report: ${toSmError(error).message}`)
      return
    }
    const now = new Date().toISOString()
    const known = this.#hosts.get(name)
    // The subject is what the broker let it publish on: the name inside the report is only its word.
    this.#hosts.set(name, { ...report, name, online: true, since: known?.online ? known.since : now, lastSeen: now })
    if (!known?.online) {
      this.#logger.info(`nats: host '${name}' (${report.hostname}) is online`)
      void this.#scope.emit('nats:host_online', { name, hostname: report.hostname, version: report.version })
    }
  }

  #gone(name: string, reason: string): void {
    const known = this.#hosts.get(name)
    if (!known?.online) return
    this.#hosts.set(name, { ...known, online: false, since: new Date().toISOString() })
    this.#logger.warn(`nats: host '${name}' is offline: ${reason}`)
    void this.#scope.emit('nats:host_offline', { name, lastSeen: known.lastSeen, reason })
  }

  #checkSilence(): void {
    const now = Date.now()
    for (const host of this.#hosts.values())
      if (host.online && now - Date.parse(host.lastSeen) > HOST_SILENT_MS)
        this.#gone(host.name, `no word from it for ${HOST_SILENT_MS / 1000} s`)
  }

  async #watch(connection: NatsConnection): Promise<void> {
    for await (const status of connection.status()) {
      if (status.type === 'disconnect') {
        this.#changed(false, 'the link to the broker is down; reconnecting')
        this.#logger.warn(`nats: lost the broker at ${status.server}; reconnecting`, {
          code: 'SM_ERR_NATS_UNREACHABLE',
        })
      } else if (status.type === 'reconnect') {
        this.#changed(true)
        this.#logger.info(`nats: back on the broker at ${status.server}`)
      } else if (status.type === 'error') {
        this.#logger.warn(`nats: the broker says: ${status.error.message}`)
      }
    }
  }

  #changed(connected: boolean, reason?: string): void {
    const server = connected ? this.#connection?.info?.server_name : undefined
    this.#state = {
      connected,
      since: new Date().toISOString(),
      ...(reason ? { reason } : {}),
      ...(server ? { server } : {}),
    }
  }

  #publish(
    connection: NatsConnection,
    event: string,
    payload: unknown,
    meta: { actor: string; seq: number | undefined },
  ) {
    const subject = subjectOf(this.#config.prefix, 'evt', event)
    if (!subject || connection.isClosed()) return
    try {
      connection.publish(subject, JSON.stringify({ payload, meta: { event, actor: meta.actor, seq: meta.seq } }))
    } catch (error) {
      this.#logger.debug(`nats: event ${event} not published: ${toSmError(error).message}`)
    }
  }

  async #request(message: Msg): Promise<void> {
    if (!message.reply) return // nobody to answer: a publish, not a request
    const refuse = (reason: string): void => {
      message.respond(answerJson({ ok: false, error: new SmError('SM_ERR_BRIDGE_BAD_MESSAGE', { reason }).toWire() }))
    }
    const command = nameOfSubject(this.#config.prefix, 'req', message.subject)
    if (!command) return refuse(`'${message.subject}' names no command`)
    let body: { payload?: unknown; actor?: unknown }
    try {
      body = message.json()
    } catch {
      return refuse('the request is not JSON')
    }
    if (body === null || typeof body !== 'object') return refuse('the request is not a JSON object')
    if (typeof body.actor !== 'string' || !BRIDGE_ACTOR.test(body.actor))
      return refuse(`the actor '${String(body.actor)}' is not cli:<user> or plugin:<name>`)
    await this.#ready
    const reply = await answer(this.#scope, command, body.payload, body.actor)
    if (!this.#connection?.isClosed()) message.respond(answerJson(reply))
  }
}
