import { hostname } from 'node:os'
import { errors, type NatsConnection, type Subscription } from '@nats-io/transport-node'
import type { Disposable } from '../../kernel/disposable'
import { SmError } from '../../kernel/errors'
import { connectNats, type NatsConfig } from '../../lib/nats-link'
import { isSubjectToken, subjectOf } from '../../lib/nats-subjects'
import type { Answer } from './answer'
import type { EventFrameMeta } from './protocol'

type EventListener = (payload: unknown, meta: EventFrameMeta) => void

/** How long a request waits for the manager's reply by default. */
const REQUEST_TIMEOUT_MS = 120_000

/**
 * A handle on a manager's bus through the NATS broker: what BridgeClient is over the local
 * socket (same requests, replies, coded errors and events), for a process on another host.
 * A request nobody answers fails at once (SM_ERR_NATS_NO_MANAGER); one the broker refuses fails
 * at once too (SM_ERR_NATS_REFUSED); one that gets no reply in time, with SM_ERR_NATS_TIMEOUT.
 */
export class NatsBridgeClient {
  readonly #connection: NatsConnection
  readonly #prefix: string
  readonly #url: string
  readonly #timeoutMs: number
  #onClose: ((reason: string | undefined) => void) | undefined

  private constructor(connection: NatsConnection, prefix: string, timeoutMs: number, url: string) {
    this.#connection = connection
    this.#url = url
    this.#prefix = prefix
    this.#timeoutMs = timeoutMs
    void connection.closed().then((error) => this.#onClose?.(error ? error.message : undefined))
  }

  /** Connects to the broker (at once, or SM_ERR_NATS_UNREACHABLE / SM_ERR_NATS_CONFIG). */
  static async connect(
    config: NatsConfig,
    options: { timeoutMs?: number; inboxPrefix?: string } = {},
  ): Promise<NatsBridgeClient> {
    const connection = await connectNats(config, `server-manager client on ${hostname()}`, {
      maxReconnectAttempts: 0,
      timeout: 5_000,
      ...(options.inboxPrefix ? { inboxPrefix: options.inboxPrefix } : {}),
    })
    return new NatsBridgeClient(connection, config.prefix, options.timeoutMs ?? REQUEST_TIMEOUT_MS, config.url)
  }

  /** Sends a command to its handler in the manager, as `actor`; resolves to the reply or rejects with its SmError. */
  async request(command: string, payload: unknown, actor: string): Promise<unknown> {
    const subject = subjectOf(this.#prefix, 'req', command)
    if (!subject)
      throw new SmError('SM_ERR_BRIDGE_BAD_MESSAGE', { reason: `'${command}' is not a command name ns:name` })
    try {
      const message = await this.#connection.request(subject, JSON.stringify({ payload, actor }), {
        timeout: this.#timeoutMs,
      })
      const reply = message.json<Answer>()
      if (reply.ok) return reply.value
      throw SmError.fromWire(reply.error)
    } catch (error) {
      throw this.#coded(error, command, subject)
    }
  }

  /**
   * Receives every `event` the manager emits from now on (a name, or a pattern with `*` for one
   * token and `**` for the rest), until disposed or disconnected.
   */
  on(event: string, listener: EventListener): Disposable {
    const tokens = event.split(':').map((t) => (t === '**' ? '>' : t))
    if (tokens.length === 1 && tokens[0] !== '>') tokens.unshift('_') // a hook's name
    if (!tokens.every((t) => t === '*' || t === '>' || isSubjectToken(t)))
      throw new SmError('SM_ERR_BRIDGE_BAD_MESSAGE', { reason: `'${event}' is not an event name or pattern` })
    const subject = `${this.#prefix}.evt.${tokens.join('.')}`
    const subscription: Subscription = this.#connection.subscribe(subject, {
      callback: (error, message) => {
        // Refused by the broker (not allowed to subscribe there): said, and the connection ends.
        if (error) return void this.#end(this.#coded(error, `on '${event}'`, subject).message)
        let frame: { payload: unknown; meta: EventFrameMeta }
        try {
          frame = message.json()
        } catch {
          return // not one of ours
        }
        // Outside the parse's try: a listener that throws is the caller's error, not swallowed.
        listener(frame.payload, frame.meta)
      },
    })
    return { dispose: () => subscription.unsubscribe() }
  }

  /** Called once when the connection ends (closed, or the broker lost for good). */
  onClose(callback: (reason: string | undefined) => void): void {
    this.#onClose = callback
  }

  /** Waits until the broker has seen everything sent so far (subscriptions included). */
  async flush(): Promise<void> {
    await this.#connection.flush()
  }

  async close(): Promise<void> {
    await this.#connection.close()
  }

  /** Tells the onClose callback why, once, and closes the connection. */
  #end(reason: string): void {
    const told = this.#onClose
    this.#onClose = undefined
    told?.(reason)
    void this.#connection.close().catch(() => {})
  }

  #coded(failure: unknown, command: string, subject: string): SmError {
    if (failure instanceof SmError) return failure
    // A RequestError says why in its cause: no responders, a timeout, a refused publish.
    const error = failure instanceof errors.RequestError && failure.cause ? failure.cause : failure
    if (
      error instanceof errors.NoRespondersError ||
      (failure instanceof errors.RequestError && failure.isNoResponders())
    )
      return new SmError('SM_ERR_NATS_NO_MANAGER', { subject }, { cause: error })
    if (error instanceof errors.TimeoutError || (error as Error)?.cause instanceof errors.TimeoutError)
      return new SmError('SM_ERR_NATS_TIMEOUT', { command, seconds: this.#timeoutMs / 1000 }, { cause: error })
    if (error instanceof errors.PermissionViolationError)
      return new SmError(
        'SM_ERR_NATS_REFUSED',
        { operation: error.operation, subject: error.subject },
        { cause: error },
      )
    if (
      error instanceof errors.ClosedConnectionError ||
      error instanceof errors.DrainingConnectionError ||
      /connection closed/i.test((error as Error)?.message ?? '')
    )
      return new SmError('SM_ERR_BRIDGE_DISCONNECTED', { command }, { cause: error })
    return new SmError(
      'SM_ERR_NATS_UNREACHABLE',
      { url: this.#url, reason: (error as Error).message },
      { cause: error },
    )
  }
}
