import { statfsSync } from 'node:fs'
import { freemem, hostname, loadavg, totalmem } from 'node:os'
import type { NatsConnection } from '@nats-io/transport-node'
import { type BusScope, type Disposable, type Logger, SmError, toSmError, type Veto } from '../../kernel'
import type { NatsConfig } from '../../lib/nats-link'
import { answerRequest, BrokerLink, publishEvents } from './broker-link'
import { isHostEvent, isHostFact, isServerHook, type NatsStatus } from './contract'

/** How often a host agent says it is there; the manager counts it gone after three beats missed. */
export const HEARTBEAT_MS = 5_000
/** How long an action here waits for the manager's plugins to say whether they veto it. */
const HOOK_MS = 10_000
/** Who may ask a host: the manager passes on whoever asked it (a person, a token, a plugin, itself). */
const HOST_ACTOR = /^(core|[a-z]{1,16}:[^\s]{1,128})$/

/**
 * A host agent's side of the broker (`server-manager agent start --nats … --name <host>`): the
 * manager of another machine's servers, headless, reached only through its own subjects
 * `<prefix>.agent.<host>.>`, which is all its credentials allow:
 *
 * - `.req.<ns>.<name>`: the manager's requests to this host's bus (the servers service answers
 *   for its servers; events:read gives its facts to the manager's log);
 * - `.evt.<ns>.<name>`: every event of its bus (the manager relays the live ones to its own);
 * - `.fact`: a nudge that a fact was recorded (the manager then takes it in, in order);
 * - `.hook`: an action's `before_*` hook, asked of the manager, where the plugins run: a veto
 *   there stops the action here;
 * - `.ping`, answered at once: the manager asks before each command whether the link works now;
 * - `.hb` every 5 s (its load, memory, disk, servers and last sequence number), `.bye` at a stop.
 */
export class NatsHost {
  readonly #scope: BusScope
  readonly #logger: Logger
  readonly #link: BrokerLink
  readonly #name: string
  readonly #prefix: string
  readonly #dataDir: string
  readonly #startedAt = new Date().toISOString()
  readonly #version: string
  #registrations: Disposable[] = []
  #timer: NodeJS.Timeout | undefined
  #open: () => void = () => {}
  readonly #ready = new Promise<void>((resolve) => {
    this.#open = resolve
  })

  constructor(
    scope: BusScope,
    logger: Logger,
    config: NatsConfig,
    host: { name: string; dataDir: string; version: string },
  ) {
    this.#scope = scope
    this.#logger = logger
    this.#name = host.name
    this.#dataDir = host.dataDir
    this.#version = host.version
    this.#prefix = `${config.prefix}.agent.${host.name}`
    this.#link = new BrokerLink(
      logger,
      config,
      {
        name: `server-manager agent ${host.name} on ${hostname()}`,
        options: { inboxPrefix: `_INBOX.agent.${host.name}` },
      },
      (connection) => this.#joined(connection),
    )
  }

  begin(): Promise<void> {
    return this.#link.begin()
  }

  /** Every service has started: requests are answered, and it beats. */
  open(): void {
    this.#open()
    void this.#beat()
    this.#timer = setInterval(() => void this.#beat(), HEARTBEAT_MS)
  }

  get status(): NatsStatus & { host: string } {
    return { ...this.#link.status, host: this.#name }
  }

  async close(): Promise<void> {
    clearInterval(this.#timer)
    for (const registration of this.#registrations) registration.dispose()
    this.#link.publish(`${this.#prefix}.bye`, {})
    await this.#link.close()
  }

  async #joined(connection: NatsConnection): Promise<void> {
    const requests = connection.subscribe(`${this.#prefix}.req.>`, {
      queue: 'host',
      callback: (error, message) => {
        if (error) return this.#logger.warn(`nats: the request subscription ended: ${error.message}`)
        void answerRequest(this.#scope, this.#prefix, message, HOST_ACTOR, this.#ready, 'taken')
      },
    })
    // The manager's ping before each command: an answer says the link to this host works now.
    connection.subscribe(`${this.#prefix}.ping`, {
      queue: 'host',
      callback: (error, message) => {
        if (!error && message.reply?.startsWith('_INBOX.')) message.respond('')
      },
    })
    // Credentials made for another host may not use this one's subjects: the broker has said so by
    // the time it answers a flush. A setting to fix, not a link to retry: the start fails.
    await connection.flush()
    if (requests.isClosed())
      throw new SmError('SM_ERR_NATS_REFUSED', { operation: 'subscription', subject: `${this.#prefix}.req.>` })
    // Only its servers' and tasks' live events: this process's own (its kernel's, its settings')
    // are nobody else's business. Facts go to the manager's log through events:read, in order:
    // here only a nudge that one came.
    if (this.#registrations.length > 0) return // bus listeners once: they use whichever connection is current
    this.#registrations.push(
      publishEvents(this.#scope, this.#link, this.#prefix, (event, seq) => {
        if (seq !== undefined && isHostFact(event, this.#scope.catalogue)) {
          this.#link.publish(`${this.#prefix}.fact`, { seq })
          return true
        }
        // Its tasks' facts too (a task's end), live: the manager follows them, it does not keep them.
        return !isHostEvent(event)
      }),
      this.#scope.on(
        '*',
        (payload, meta) =>
          meta.event.startsWith('before_') && isServerHook(meta.event, this.#scope.catalogue)
            ? this.#hook(meta.event, payload, meta.actor)
            : undefined,
        { timeoutMs: HOOK_MS + 1_000 },
      ),
    )
  }

  /** Asks the manager's plugins about an action here; their veto is this listener's. */
  async #hook(event: string, payload: unknown, actor: string): Promise<Veto | undefined> {
    const connection = this.#link.connection
    if (!connection || !this.#link.connected) {
      this.#logger.warn(`nats: '${event}' ran without the manager's plugins: not on the broker`)
      return undefined
    }
    try {
      const reply = await connection.request(`${this.#prefix}.hook`, JSON.stringify({ event, payload, actor }), {
        timeout: HOOK_MS,
      })
      const { veto, error } = reply.json<{ veto?: { reason?: string; by?: string }; error?: { message?: string } }>()
      if (error) this.#logger.warn(`nats: the manager refused '${event}': ${error.message}`)
      return veto ? { cancel: true, reason: veto.reason, by: veto.by } : undefined
    } catch (error) {
      // Fail open, as documented: the host's servers keep working while the manager is away.
      const why =
        (error as Error)?.cause instanceof Error
          ? (error as Error & { cause: Error }).cause.message
          : (error as Error)?.message
      this.#logger.warn(`nats: '${event}' ran without the manager's plugins (the manager did not answer: ${why})`)
      return undefined
    }
  }

  async #beat(): Promise<void> {
    try {
      const [servers, head] = await Promise.all([
        this.#scope.request('servers:list', {}),
        this.#scope.request('events:head', {}),
      ])
      this.#link.publish(`${this.#prefix}.hb`, {
        name: this.#name,
        hostname: hostname(),
        pid: process.pid,
        version: this.#version,
        node: process.version,
        startedAt: this.#startedAt,
        load: loadavg(),
        memory: { total: totalmem(), free: freemem() },
        disk: diskOf(this.#dataDir),
        rss: process.memoryUsage.rss(),
        // Each server's status, and what only this machine knows of it: its game's PID, who is on.
        servers: servers.map((s) => ({
          server: s.name,
          status: s.status,
          ...(s.pid === undefined ? {} : { pid: s.pid }),
          ...(s.players === undefined ? {} : { players: s.players }),
        })),
        lastSeq: head.seq,
        log: head.log,
        at: new Date().toISOString(),
      })
    } catch (error) {
      this.#logger.debug(`nats: no beat: ${toSmError(error).message}`)
    }
  }
}

function diskOf(path: string): { total: number; free: number } {
  try {
    const fs = statfsSync(path)
    return { total: fs.blocks * fs.bsize, free: fs.bavail * fs.bsize }
  } catch {
    return { total: 0, free: 0 }
  }
}
