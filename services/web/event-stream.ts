import { PassThrough } from 'node:stream'
import type { Context } from 'koa'
import { type BusScope, SmError, withoutSecrets } from '../../kernel'
import { type Identity, type Role, roleAtLeast } from '../auth/contract'

/**
 * Topics a client can follow on `GET /api/events/stream?topics=a,b`, and who may:
 * - `server_status` (user): every server's status changes;
 * - `tasks`, `task:<id>` (user): task progress and results;
 * - `server_log:<server>` (moderator): console lines as the server writes them;
 * - `backup_progress:<server>` (moderator): backup, restore and export progress;
 * - `event:<type>`, `event:*` (admin): facts as they are recorded (secrets redacted).
 */
export function topicAccess(topic: string): Role | undefined {
  if (topic === 'server_status' || topic === 'tasks' || /^task:[\w-]+$/.test(topic)) return 'user'
  if (/^(server_log|backup_progress):[^:\s]+$/.test(topic)) return 'moderator'
  if (/^event:[\w*]+$/.test(topic)) return 'admin'
  return undefined
}

interface Subscriber {
  readonly topics: ReadonlySet<string>
  readonly out: PassThrough
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
 * the client's role when it subscribes.
 */
export class EventStream {
  readonly #subscribers = new Set<Subscriber>()
  #timer: NodeJS.Timeout | undefined

  constructor(bus: BusScope) {
    bus.on('events:appended', ({ events }) => {
      if (this.#subscribers.size === 0) return
      for (const event of events) {
        const fact = { ...event, payload: withoutSecrets(event.payload) }
        this.publish(`event:${event.type}`, 'fact', fact)
        this.publish('event:*', 'fact', fact)
        const p = event.payload as Record<string, unknown>
        if (event.type === 'after_server_status_change') this.publish('server_status', 'server_status', p)
        if (event.type === 'task_started' || event.type === 'task_finished') {
          const data = { ...p, state: event.type === 'task_started' ? 'running' : p.state }
          this.publish('tasks', event.type, data)
          this.publish(`task:${String(p.id)}`, event.type, data)
        }
      }
    })
    bus.on('server_console', ({ serverName, line }) => this.publish(`server_log:${serverName}`, 'server_log', line))
    bus.on('task_progress', (progress) => {
      this.publish('tasks', 'task_progress', progress)
      this.publish(`task:${progress.id}`, 'task_progress', progress)
    })
    bus.on('backup_progress', (progress) =>
      this.publish(`backup_progress:${progress.serverName}`, 'backup_progress', progress),
    )
  }

  get clients(): number {
    return this.#subscribers.size
  }

  /** Answers the request with the stream of `topics` (checked against the caller's role). */
  open(ctx: Context, topics: readonly string[], user: Identity): void {
    for (const topic of topics) {
      const required = topicAccess(topic)
      if (!required)
        throw new SmError('SM_ERR_WEB_VALIDATION', {
          summary: `'${topic}' is not a topic (server_status, tasks, task:<id>, server_log:<server>, backup_progress:<server>, event:<type>)`,
          issues: [{ where: 'query', path: 'topics', message: `unknown topic '${topic}'` }],
        })
      if (!roleAtLeast(user.role, required)) throw new SmError('SM_ERR_AUTH_FORBIDDEN', { role: user.role, required })
    }
    const out = new PassThrough()
    const subscriber: Subscriber = { topics: new Set(topics), out }
    this.#subscribers.add(subscriber)
    const end = () => {
      this.#subscribers.delete(subscriber)
      out.end()
      if (this.#subscribers.size === 0 && this.#timer) {
        clearInterval(this.#timer)
        this.#timer = undefined
      }
    }
    ctx.req.on('close', end)
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

  publish(topic: string, type: string, data: unknown): void {
    let frame: string | undefined
    for (const subscriber of this.#subscribers) {
      if (!subscriber.topics.has(topic)) continue
      frame ??= `data: ${JSON.stringify({ type, topic, data } satisfies StreamMessage)}\n\n`
      subscriber.out.write(frame)
    }
  }

  closeAll(): void {
    for (const subscriber of this.#subscribers) subscriber.out.end()
    this.#subscribers.clear()
    if (this.#timer) clearInterval(this.#timer)
    this.#timer = undefined
  }
}
