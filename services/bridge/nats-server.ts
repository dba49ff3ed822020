import { hostname } from 'node:os'
import type { Msg, NatsConnection } from '@nats-io/transport-node'
import { type BusScope, type Disposable, type Logger, SmError, toSmError } from '../../kernel'
import { answer, answerJson, BRIDGE_ACTOR } from './answer'
import type { NatsStatus } from './contract'
import { connectNats, type NatsConfig } from './nats-link'
import { allSubjects, nameOfSubject, subjectOf } from './nats-subjects'

/** How long the manager waits before trying an unreachable broker again (nats.js reconnects by itself once connected). */
const RETRY_MS = 2_000

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
    void this.#watch(connection)
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
