import { PassThrough } from 'node:stream'
import type { Context } from 'koa'
import { type BusScope, SmError } from '../../kernel'
import { BoundedMap } from '../../lib/bounded-map'
import { withoutSecrets } from '../../lib/secrets'
import { withoutServerSecrets } from '../../lib/server-secrets'
import { type Identity, type Role, type ServerRight, seesServer } from '../auth/contract'
import { onAuthChange } from './auth-changes'
import { admit } from './route'
import { seesTask } from './server-access'

/** Who may follow a topic: a role, and, for a topic of one server, that server and the right it takes there. */
export interface TopicAccess {
  readonly role: Role
  readonly server?: { readonly name: string; readonly right: ServerRight }
}

/**
 * Topics a client can follow on `GET /api/events/stream?topics=a,b`, and who may (an account held
 * to its server grants: a server's topic by its right there, the others as a `user`, each
 * message of every server's topics and of the tasks' only about servers it sees):
 * - `server_status` (user): every server's status changes, and `server_stopping` while a stop's hooks run (players warned);
 * - `players:<server>` (user; right view): a server's players joining and leaving, as they are recorded;
 * - `tasks`, `task:<id>` (user): task progress and results;
 * - `server_log:<server>` (moderator; right console): console lines as the server writes them;
 * - `servers:backup_progress:<server>` (moderator; right backups): backup, restore and export progress;
 * - `servers:sampled:<server>` (user; right view), `servers:sampled` (user): each resource sample of that server, or of every server;
 * - `metrics:host_sampled` (moderator): each resource sample of the machine;
 * - `event:<type>`, `event:*` (admin): facts as they are recorded (secrets redacted).
 */
export function topicAccess(topic: string): TopicAccess | undefined {
  if (['server_status', 'tasks', 'servers:sampled'].includes(topic) || /^task:[\w-]+$/.test(topic))
    return { role: 'user' }
  if (topic === 'metrics:host_sampled') return { role: 'moderator' }
  if (/^event:[\w*:]+$/.test(topic)) return { role: 'admin' }
  for (const [pattern, role, right] of SERVER_TOPICS) {
    const name = pattern.exec(topic)?.[1]
    if (name !== undefined) return { role, server: { name, right } }
  }
  return undefined
}

/** The topics of one server (its name the pattern's group), with who may follow them. */
const SERVER_TOPICS: readonly (readonly [RegExp, Role, ServerRight])[] = [
  [/^(?:players|servers:sampled):([^:\s]+)$/, 'user', 'view'],
  [/^server_log:([^:\s]+)$/, 'moderator', 'console'],
  [/^servers:backup_progress:([^:\s]+)$/, 'moderator', 'backups'],
]

/** Refuses (throws the coded error) when `user` may not follow `topic`. */
function admitTopic(user: Identity, topic: string): void {
  const access = topicAccess(topic)
  if (!access)
    throw new SmError('SM_ERR_WEB_VALIDATION', {
      summary: `'${topic}' is not a topic (server_status, tasks, task:<id>, players:<server>, server_log:<server>, servers:backup_progress:<server>, servers:sampled[:<server>], metrics:host_sampled, event:<type>)`,
      issues: [{ where: 'query', path: 'topics', message: `unknown topic '${topic}'` }],
    })
  admit(user, access.role, access.server)
}

/** What a message is about, for the accounts held to their server grants: a server, or a task (by its id). */
interface About {
  readonly server?: string
  readonly task?: string
}

interface Subscriber {
  readonly topics: ReadonlySet<string>
  /** Who opened it, as last verified: what reaches it is narrowed to what this identity may see. */
  user: Identity
  readonly out: PassThrough
  /** The session or API token it was opened with, verified again on every auth fact. */
  readonly token: string
  /** Ends the stream and forgets it. */
  readonly end: () => void
}

const HEARTBEAT_MS = 15_000

/** A message on the stream: the native UI's `{type, topic, data}`. */
export interface StreamMessage {
  readonly type: string
  readonly topic: string
  readonly data: unknown
}

/**
 * Server-Sent Events fed by the bus: facts as the log records them (from any process), console
 * lines, task and backup progress. Each client names its topics; each topic is checked against
 * the client's role when it subscribes, and again whenever a user, token or session changes (a
 * sign-out, a deletion, a demotion, a password change, a revocation): a stream whose token no
 * longer passes, or whose role no longer covers all its topics, ends. Until that check is done,
 * what would be sent waits, so nothing recorded after the change reaches a stream that lost it.
 */
export class EventStream {
  readonly #bus: BusScope
  readonly #subscribers = new Set<Subscriber>()
  #timer: NodeJS.Timeout | undefined
  /** Deliveries held back behind the identity checks under way, in order. */
  #queue: Promise<void> = Promise.resolve()
  /** Identity checks queued and not yet done. */
  #checks = 0
  /** The server each recent task is about (its later messages do not say): an account held to grants gets only its servers'. */
  readonly #taskServers = new BoundedMap<string, string | undefined>(1000)

  constructor(bus: BusScope) {
    this.#bus = bus
    onAuthChange(bus, () => {
      if (this.#subscribers.size > 0) this.#recheck()
    })
    bus.on('events:appended', ({ events }) => {
      for (const event of events)
        if (event.type === 'tasks:started') {
          const p = event.payload as { id: string; server?: string }
          this.#taskServers.set(p.id, p.server)
        }
      if (this.#subscribers.size === 0) return
      for (const event of events) {
        const fact = { ...event, payload: withoutSecrets(event.payload) }
        this.publish(`event:${event.type}`, 'fact', fact)
        this.publish('event:*', 'fact', fact)
        const p = event.payload as Record<string, unknown>
        if (event.type === 'after_server_status_change')
          this.publish('server_status', 'server_status', p, { server: String(p.serverName) })
        if (event.type === 'after_player_join' || event.type === 'after_player_leave')
          this.publish(`players:${String(p.serverName)}`, event.type, p)
        if (event.type === 'tasks:started' || event.type === 'tasks:finished') {
          // A user's topic: a task's result (an install's server record) without its environment's values.
          const data = withoutServerSecrets({ ...p, state: event.type === 'tasks:started' ? 'running' : p.state })
          this.publish('tasks', event.type, data, { task: String(p.id) })
          this.publish(`task:${String(p.id)}`, event.type, data, { task: String(p.id) })
        }
      }
    })
    bus.on('servers:console', ({ serverName, line }) => this.publish(`server_log:${serverName}`, 'server_log', line))
    bus.on('servers:stopping', (stopping) =>
      this.publish('server_status', 'server_stopping', stopping, { server: stopping.serverName }),
    )
    bus.on('tasks:progress', (progress) => {
      this.publish('tasks', 'tasks:progress', progress, { task: progress.id })
      this.publish(`task:${progress.id}`, 'tasks:progress', progress, { task: progress.id })
    })
    bus.on('servers:backup_progress', (progress) =>
      this.publish(`servers:backup_progress:${progress.serverName}`, 'servers:backup_progress', progress),
    )
    bus.on('servers:sampled', (metrics) => {
      this.publish(`servers:sampled:${metrics.serverName}`, 'servers:sampled', metrics)
      this.publish('servers:sampled', 'servers:sampled', metrics, { server: metrics.serverName })
    })
    bus.on('metrics:host_sampled', ({ sample }) => this.publish('metrics:host_sampled', 'metrics:host_sampled', sample))
  }

  get clients(): number {
    return this.#subscribers.size
  }

  /** Answers the request with the stream of `topics` (checked against the caller's reach, who presented `token`). */
  open(ctx: Context, topics: readonly string[], user: Identity, token: string): void {
    for (const topic of topics) admitTopic(user, topic)
    const out = new PassThrough()
    let expiry: NodeJS.Timeout | undefined
    const end = () => {
      clearTimeout(expiry)
      this.#subscribers.delete(subscriber)
      out.end()
      if (this.#subscribers.size === 0 && this.#timer) {
        clearInterval(this.#timer)
        this.#timer = undefined
      }
    }
    const subscriber: Subscriber = { topics: new Set(topics), user, out, token, end }
    this.#subscribers.add(subscriber)
    ctx.req.on('close', end)
    // A session or token that expires ends its stream then (no fact says so). Timers wait at most 2^31-1 ms: re-armed until then.
    const expiresAt = user.expiresAt
    const arm = () => {
      const left = (expiresAt ?? 0) - Date.now()
      if (left <= 0) {
        if (this.#subscribers.has(subscriber)) subscriber.out.write(': ended: the session or token expired\n\n')
        end()
      } else expiry = setTimeout(arm, Math.min(left, 2 ** 31 - 1)).unref()
    }
    if (expiresAt !== undefined) arm()
    ctx.req.socket.setTimeout(0)
    ctx.req.setTimeout(0)
    ctx.set({ 'Cache-Control': 'no-cache, no-transform', Connection: 'keep-alive', 'X-Accel-Buffering': 'no' })
    ctx.type = 'text/event-stream'
    ctx.status = 200
    ctx.body = out
    out.write(`retry: 3000\n: subscribed to ${topics.join(', ') || 'nothing'}\n\n`)
    this.#timer ??= setInterval(() => {
      for (const s of this.#subscribers) s.out.write(': ping\n\n')
    }, HEARTBEAT_MS).unref()
  }

  publish(topic: string, type: string, data: unknown, about: About = {}): void {
    if (this.#checks > 0) this.#queue = this.#queue.then(() => this.#deliver(topic, type, data, about))
    else this.#deliver(topic, type, data, about)
  }

  /** Checks every stream's identity again (an auth fact was recorded); deliveries wait for it. */
  #recheck(): void {
    if (this.#subscribers.size === 0) return
    this.#checks++
    // After the deliveries queued so far, whatever became of them: a check is never skipped.
    this.#queue = this.#queue
      .catch(() => undefined)
      .then(() => Promise.all([...this.#subscribers].map((subscriber) => this.#check(subscriber))))
      .then(
        () => {
          this.#checks--
        },
        () => {
          this.#checks--
        },
      )
  }

  /** Ends the stream unless its token still passes and its role still covers every topic. */
  async #check(subscriber: Subscriber): Promise<void> {
    let reason: string | undefined
    try {
      const user = await this.#bus.request('auth:verify', { token: subscriber.token })
      for (const topic of subscriber.topics)
        try {
          admitTopic(user, topic)
        } catch (error) {
          reason ??= `the topic ${topic} is no longer open to this caller: ${error instanceof SmError ? error.webMessage : error}`
        }
      if (user.enrolOnly) reason = new SmError('SM_ERR_AUTH_TWO_FACTOR_REQUIRED', {}).webMessage
      subscriber.user = user
    } catch (error) {
      // Not verified, for whatever reason: the stream ends (the client may open another).
      reason = error instanceof SmError ? error.webMessage : 'the identity could not be checked'
    }
    if (reason === undefined || !this.#subscribers.has(subscriber)) return
    subscriber.out.write(`: ended: ${reason.replace(/\s+/g, ' ')}\n\n`)
    subscriber.end()
  }

  #deliver(topic: string, type: string, data: unknown, about: About): void {
    let frame: string | undefined
    for (const subscriber of this.#subscribers) {
      if (!subscriber.topics.has(topic)) continue
      if (about.server !== undefined && !seesServer(subscriber.user, about.server)) continue
      if (about.task !== undefined && !seesTask(subscriber.user, this.#taskServers.get(about.task))) continue
      frame ??= `data: ${JSON.stringify({ type, topic, data } satisfies StreamMessage)}\n\n`
      subscriber.out.write(frame)
    }
  }

  closeAll(): void {
    for (const subscriber of [...this.#subscribers]) subscriber.end()
    this.#subscribers.clear()
    if (this.#timer) clearInterval(this.#timer)
    this.#timer = undefined
  }
}
