import { type ConnectionOptions, errors, type Msg, type NatsConnection } from '@nats-io/transport-node'
import { type BusScope, type Disposable, type Logger, SmError, toSmError } from '../../kernel'
import { connectNats, type NatsConfig } from '../../lib/nats-link'
import { nameOfSubject, subjectOf } from '../../lib/nats-subjects'
import { withoutSecrets } from '../../lib/secrets'
import { type Answer, answer, answerJson } from './answer'
import type { NatsStatus } from './contract'

/** How long a process waits before trying an unreachable broker again (nats.js reconnects by itself once connected). */
const RETRY_MS = 2_000

/**
 * One process's link to the NATS broker, the manager's or a host agent's: connects (once at the
 * start, so the start can say whether it is on the broker; then every 2 s in the background
 * while the broker is not there), says when the link drops and comes back, keeps the state
 * `nats:status` answers, and drains on close so replies in flight go out. `joined` runs once, on
 * the first connection: nats.js keeps its subscriptions across reconnects.
 */
export class BrokerLink {
  readonly config: NatsConfig
  readonly #logger: Logger
  readonly #name: string
  readonly #options: Partial<ConnectionOptions>
  readonly #joined: (connection: NatsConnection) => void | Promise<void>
  readonly #down: () => void
  #connection: NatsConnection | undefined
  #retry: NodeJS.Timeout | undefined
  #stopped = false
  #state: { connected: boolean; since: string; reason?: string; server?: string }

  constructor(
    logger: Logger,
    config: NatsConfig,
    who: { name: string; options?: Partial<ConnectionOptions>; down?: () => void },
    /** Sets up a new connection; a rejection (credentials that may not use its subjects) ends it, and a first start. */
    joined: (connection: NatsConnection) => void | Promise<void>,
  ) {
    this.#logger = logger
    this.config = config
    this.#name = who.name
    this.#options = who.options ?? {}
    this.#joined = joined
    this.#down = who.down ?? (() => {})
    this.#state = { connected: false, since: new Date().toISOString(), reason: 'connecting' }
  }

  /** The first attempt: a setting that cannot be used rejects it (the start fails, loudly). */
  begin(): Promise<void> {
    return this.#attempt(true)
  }

  get connection(): NatsConnection | undefined {
    return this.#connection
  }

  get connected(): boolean {
    return this.#state.connected
  }

  get status(): NatsStatus {
    return { configured: true, url: this.config.url, prefix: this.config.prefix, ...this.#state }
  }

  async close(): Promise<void> {
    this.#stopped = true
    clearTimeout(this.#retry)
    const connection = this.#connection
    this.#connection = undefined
    if (connection && !connection.isClosed()) await connection.drain().catch(() => connection.close())
  }

  /** Publishes JSON, if connected (nats.js buffers while it reconnects); false when it could not. */
  publish(subject: string, value: unknown): boolean {
    const connection = this.#connection
    if (!connection || connection.isClosed()) return false
    try {
      connection.publish(subject, JSON.stringify(value))
      return true
    } catch (error) {
      this.#logger.debug(`nats: nothing published on ${subject}: ${toSmError(error).message}`)
      return false
    }
  }

  async #attempt(first = false): Promise<void> {
    let connection: NatsConnection
    try {
      connection = await connectNats(this.config, this.#name, { timeout: 5_000, ...this.#options })
    } catch (error) {
      const failure = toSmError(error)
      if (this.#stopped) return
      // Later (a credentials file gone since the start) it is said and tried again like any other failure.
      if (first && failure.code === 'SM_ERR_NATS_CONFIG') throw failure
      if (this.#state.reason !== failure.message) {
        this.#logger.warn(`${failure.message} Trying again every ${RETRY_MS / 1000} s.`, { code: failure.code })
        this.#state = { connected: false, since: new Date().toISOString(), reason: failure.message }
      }
      this.#retry = setTimeout(() => void this.#attempt(), RETRY_MS)
      return
    }
    if (this.#stopped) return void (await connection.close())
    try {
      await this.#joined(connection)
    } catch (error) {
      await connection.close().catch(() => {})
      const failure = toSmError(error)
      if (first) throw failure
      this.#logger.error(`${failure.message} Trying again every ${RETRY_MS / 1000} s.`, { code: failure.code })
      this.#state = { connected: false, since: new Date().toISOString(), reason: failure.message }
      this.#retry = setTimeout(() => void this.#attempt(), RETRY_MS)
      return
    }
    if (this.#stopped) return void (await connection.close()) // stopped while it was being set up
    this.#connection = connection
    this.#changed(true)
    this.#logger.info(`nats: joined the broker at ${connection.getServer()}`)
    void this.#watch(connection)
  }

  async #watch(connection: NatsConnection): Promise<void> {
    // A connection nats.js gives up on (the broker closed it for good) is replaced: this process
    // stays on the broker for as long as it runs.
    void connection.closed().then((error) => {
      if (this.#stopped || this.#connection !== connection) return
      this.#connection = undefined
      const reason = `the broker closed the connection${error ? ` (${error.message})` : ''}`
      this.#changed(false, reason)
      this.#down()
      this.#logger.warn(`nats: ${reason}; trying again every ${RETRY_MS / 1000} s`, { code: 'SM_ERR_NATS_UNREACHABLE' })
      this.#retry = setTimeout(() => void this.#attempt(), RETRY_MS)
    })
    for await (const status of connection.status()) {
      if (status.type === 'disconnect') {
        this.#changed(false, 'the link to the broker is down; reconnecting')
        this.#down()
        this.#logger.warn(`nats: lost the broker at ${status.server}; reconnecting`, {
          code: 'SM_ERR_NATS_UNREACHABLE',
        })
      } else if (status.type === 'reconnect') {
        this.#changed(true)
        this.#logger.info(`nats: back on the broker at ${status.server}`)
      } else if (status.type === 'error') {
        const refused = status.error instanceof errors.PermissionViolationError ? status.error : undefined
        if (refused)
          this.#logger.warn(
            `${new SmError('SM_ERR_NATS_REFUSED', { operation: refused.operation, subject: refused.subject }).message} (${this.#name})`,
            { code: 'SM_ERR_NATS_REFUSED' },
          )
        else this.#logger.warn(`nats: the broker says: ${status.error.message}`)
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
}

/** Commands no network caller gets: they hand out what only this machine's user may see (the vault of secrets). */
const LOCAL_ONLY: ReadonlySet<string> = new Set(['events:vault_get', 'events:vault_set', 'events:vault_init'])
/**
 * Commands that take a path of this machine to read (`from`, `file`): a network caller of the
 * manager (a person's CLI elsewhere) would name files of this machine it may not see (the event
 * log and its vault) and read them back through a server's directory. A host agent takes them:
 * only its manager may ask it, with a file it sent there first.
 */
const TAKES_A_PATH: ReadonlySet<string> = new Set([
  'files:upload',
  'servers:install',
  'servers:update',
  'servers:import',
])

/**
 * Answers the bus requests that arrive on `<prefix>.req.<ns>.<name>` (`prefix` being the
 * manager's, or a host's own `sm.agent.<host>`), as the local socket does: the same checks and
 * coded refusals, the actor checked against `actors`, once `ready` resolves.
 */
export async function answerRequest(
  scope: BusScope,
  prefix: string,
  message: Msg,
  actors: RegExp,
  ready: Promise<void>,
  paths: 'taken' | 'refused' = 'refused',
): Promise<void> {
  // Only to an inbox: a reply subject is the requester's word, and answering on any other would
  // let it make this process publish wherever it may (a host's subjects, the events).
  if (!message.reply?.startsWith('_INBOX.')) return
  const respond = (reply: Answer) => {
    const text = answerJson(reply)
    try {
      message.respond(text)
    } catch (error) {
      // Too large for the broker (max_payload): a short coded error that fits instead. A
      // connection closed meanwhile (a stop): the requester hears of it as a lost link.
      try {
        const tooLarge = new SmError('SM_ERR_NATS_REPLY_TOO_LARGE', {
          command: nameOfSubject(prefix, 'req', message.subject) ?? 'the request',
          bytes: Buffer.byteLength(text),
          reason: toSmError(error).message,
        })
        message.respond(answerJson({ ok: false, error: tooLarge.toWire() }))
      } catch {}
    }
  }
  const refuse = (reason: string) =>
    respond({ ok: false, error: new SmError('SM_ERR_BRIDGE_BAD_MESSAGE', { reason }).toWire() })
  const command = nameOfSubject(prefix, 'req', message.subject)
  if (!command) return void refuse(`'${message.subject}' names no command`)
  let body: { payload?: unknown; actor?: unknown }
  try {
    body = message.json()
  } catch {
    return void refuse('the request is not JSON')
  }
  if (body === null || typeof body !== 'object') return void refuse('the request is not a JSON object')
  if (typeof body.actor !== 'string' || !actors.test(body.actor))
    return void refuse(`the actor '${String(body.actor).slice(0, 80)}' is not one that may ask here`)
  if (LOCAL_ONLY.has(command) || (paths === 'refused' && TAKES_A_PATH.has(command)))
    return void refuse(`'${command}' is answered only on this machine's socket`)
  await ready
  // A setting read over the network never carries a secret, whoever asks.
  const payload = command.startsWith('settings:get') ? { ...(body.payload as object), redact: 'mask' } : body.payload
  respond(await answer(scope, command, payload, body.actor))
}

/** Publishes every event of the bus under `prefix` (`<prefix>.evt.<ns>.<name>`), those `skip` leaves out aside. */
export function publishEvents(
  scope: BusScope,
  link: BrokerLink,
  prefix: string,
  skip: (event: string, seq: number | undefined) => boolean = () => false,
): Disposable {
  return scope.on('**', (payload, meta) => {
    if (skip(meta.event, meta.seq)) return
    const subject = subjectOf(prefix, 'evt', meta.event)
    // What leaves the process for the network has its secrets hidden, as in the log and the web API.
    if (subject)
      link.publish(subject, {
        payload: withoutSecrets(payload),
        meta: { event: meta.event, actor: meta.actor, seq: meta.seq },
      })
  })
}
