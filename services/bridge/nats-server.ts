import { randomUUID } from 'node:crypto'
import { open } from 'node:fs/promises'
import { hostname } from 'node:os'
import { basename } from 'node:path'
import { isDeepStrictEqual } from 'node:util'
import { errors, type Msg, type NatsConnection } from '@nats-io/transport-node'
import { type BusScope, type Catalogue, type Disposable, isVeto, type Logger, SmError, toSmError } from '../../kernel'
import type { NatsConfig } from '../../lib/nats-link'
import { allSubjects, isSubjectToken, nameOfSubject, subjectOf } from '../../lib/nats-subjects'
import { PIECE_BYTES } from '../../lib/pieces'
import type { StoredEvent } from '../events/contract'
import type { Answer } from './answer'
import { BRIDGE_ACTOR } from './answer'
import { answerRequest, BrokerLink, publishEvents } from './broker-link'
import {
  type Host,
  type HostsLink,
  hostFactTypes,
  hostReport,
  hostTaskId,
  isHostEvent,
  isHostFact,
  isServerHook,
  type NatsStatus,
  serverOf,
} from './contract'
import { admitHostFacts, type KnownServer, type RefusedFact } from './host-facts'

/** A host agent that has not beaten for this long is offline (three of its 5 s beats). */
const HOST_SILENT_MS = 15_000
/**
 * How long a command for a server on another host may take (a large backup, a slow start): the
 * agent's broker entry lets it answer that late (allow_responses expires in 1h). A host that goes
 * offline or a link that drops meanwhile ends the wait at once.
 */
const HOST_REQUEST_MS = 3_600_000
/**
 * How long a host has to answer the ping before each command: a link that died silently (a cable,
 * a firewall: no TCP close, so neither the broker nor its beats tell yet) fails a command in this
 * long rather than after three missed beats.
 */
const HOST_PING_MS = 3_000
/** How many hosts the manager keeps (a bound on what a broker with loose permissions can make it hold). */
const MAX_HOSTS = 1_000
/**
 * The settings a host takes from its manager: how servers run, are kept and are measured. Never
 * where things are on that machine (`paths.*`), nor the host's own (its events, web, NATS, tasks).
 */
const SHARED_SETTING = /^(servers|retention|metrics)\.|^files\.max_text_kb$/
/** The actor a host sees the manager's settings set by. */
const MANAGER_ACTOR = 'core'
/** How many of a host's facts one request takes in. */
const SYNC_PAGE = 500
/** How many refused facts of one page are logged one by one (a hostile host could send a page of them each beat). */
const REFUSALS_LOGGED = 10

/**
 * The bridge's NATS transport, in the manager: answers every `<prefix>.req.<ns>.<name>` request
 * as the local socket does (same commands, replies, coded errors, actors), and publishes every
 * bus event on `<prefix>.evt.<ns>.<name>`. It also keeps the host agents: their beats (the hosts
 * table), their facts (taken into the log in order, exactly once: `sync`), their live events
 * (relayed to this bus), their hooks (run here, where the plugins are), and the way to send a
 * host a command (HostsLink). A broker that is not there does not stop the manager: it says so
 * (SM_ERR_NATS_UNREACHABLE, in the log and in `nats:status`) and keeps trying.
 */
export class NatsBridge implements HostsLink {
  readonly #scope: BusScope
  readonly #logger: Logger
  readonly #link: BrokerLink
  readonly #prefix: string
  #events: Disposable | undefined
  #settings: Disposable | undefined
  /** The settings shares under way, per host (run one after another). */
  readonly #sharing = new Map<string, Promise<void>>()
  #silence: NodeJS.Timeout | undefined
  /** Every host agent heard from since the start, by name. */
  readonly #hosts = new Map<string, Host>()
  /** The agents that beat as each host, the newest last: one that comes back after another is a second agent under one name. */
  readonly #beaters = new Map<string, { last: string; before?: string; warned?: boolean }>()
  /** The requests waiting on each host: a host that goes offline, or a lost link, ends them at once. */
  readonly #waiting = new Map<string, Set<(error: SmError) => void>>()
  /** Which host each server lives on (undefined: this machine) and when it was added, as the registry said last (each beat, each sync). */
  #owners = new Map<string, KnownServer>()
  /** Each host's sync under way (one at a time per host), and whether another is asked for after it. */
  readonly #syncs = new Map<string, { running: Promise<void>; again: boolean }>()
  #open: () => void = () => {}
  readonly #ready = new Promise<void>((resolve) => {
    this.#open = resolve
  })

  constructor(scope: BusScope, logger: Logger, config: NatsConfig) {
    this.#scope = scope
    this.#logger = logger
    this.#prefix = config.prefix
    this.#link = new BrokerLink(
      logger,
      config,
      {
        name: `server-manager manager on ${hostname()}`,
        // Replies in flight are lost with the link: their callers hear it now, not in an hour.
        down: () =>
          this.#abandon(
            undefined,
            "this manager's link to the broker dropped during the command; whether it was done is unknown",
          ),
      },
      (c) => this.#joined(c),
    )
  }

  /** Tries the broker once, then keeps trying in the background; requests are answered once `open` is called. */
  begin(): Promise<void> {
    return this.#link.begin()
  }

  open(): void {
    this.#open()
  }

  get status(): NatsStatus {
    return this.#link.status
  }

  async close(): Promise<void> {
    clearInterval(this.#silence)
    this.#events?.dispose()
    this.#settings?.dispose()
    await this.#link.close()
  }

  /** Every host agent heard from, with its last figures. */
  get hosts(): Host[] {
    return [...this.#hosts.values()].sort((a, b) => a.name.localeCompare(b.name))
  }

  state(host: string): Pick<Host, 'online' | 'since' | 'servers'> | undefined {
    const known = this.#hosts.get(host)
    return known ? { online: known.online, since: known.since, servers: known.servers } : undefined
  }

  async request(host: string, command: string, payload: unknown, actor: string): Promise<unknown> {
    const unreachable = (reason: string, cause?: unknown) =>
      new SmError('SM_ERR_HOST_UNREACHABLE', { host, reason }, cause ? { cause } : undefined)
    const known = this.#hosts.get(host)
    const connection = this.#link.connection
    if (!connection || !this.#link.connected) throw unreachable('this manager is not on the NATS broker')
    if (!known) throw unreachable('it has never joined this manager')
    if (!known.online) throw unreachable(`it is offline since ${known.since}`)
    const subject = subjectOf(this.#hostPrefix(host), 'req', command)
    if (!subject) throw new SmError('SM_ERR_BRIDGE_BAD_MESSAGE', { reason: `'${command}' is not a command name` })
    let reply: Answer
    let lose: (error: SmError) => void = () => {}
    const lost = new Promise<never>((_, reject) => {
      lose = reject
    })
    const waiting = this.#waiting.get(host) ?? new Set()
    waiting.add(lose)
    this.#waiting.set(host, waiting)
    let pinged = false
    try {
      await Promise.race([connection.request(`${this.#hostPrefix(host)}.ping`, '', { timeout: HOST_PING_MS }), lost])
      pinged = true
      const message = await Promise.race([
        connection.request(subject, JSON.stringify({ payload, actor }), { timeout: HOST_REQUEST_MS }),
        lost,
      ])
      reply = message.json<Answer>()
    } catch (failure) {
      if (failure instanceof SmError) throw failure
      const error = failure instanceof errors.RequestError && failure.cause ? failure.cause : failure
      if (
        error instanceof errors.NoRespondersError ||
        (failure instanceof errors.RequestError && failure.isNoResponders())
      )
        throw unreachable(
          pinged
            ? 'its agent does not answer (not on the broker)'
            : `its agent (version ${known.version}) answers no ping though it beats: one older than this manager's, which pings before each command; upgrade it`,
          failure,
        )
      if (error instanceof errors.TimeoutError && !pinged)
        throw unreachable(`it did not answer a ping within ${HOST_PING_MS / 1000} s (the link to it is down)`, failure)
      if (error instanceof errors.TimeoutError)
        throw unreachable(
          `it did not answer '${command}' within ${HOST_REQUEST_MS / 1000} s; whether it was done is unknown`,
          failure,
        )
      throw unreachable(toSmError(error).message, failure)
    } finally {
      waiting.delete(lose)
    }
    if (!reply.ok) throw SmError.fromWire(reply.error)
    return reply.value
  }

  async call(host: string, command: string, payload: unknown, actor: string): Promise<unknown> {
    const reply = await this.request(host, command, payload, actor)
    await this.sync(host).catch((error: unknown) =>
      this.#logger.warn(`The facts of host '${host}' are not all in the log yet: ${toSmError(error).message}`),
    )
    return reply
  }

  get pieceBytes(): number {
    // Base64 is 4 bytes for 3, and the JSON around it and the subject need room too.
    const max = this.#link.connection?.info?.max_payload
    return max === undefined ? PIECE_BYTES : Math.max(3, Math.min(PIECE_BYTES, Math.floor(((max - 4_096) * 3) / 4)))
  }

  async sending<T>(host: string, file: string, actor: string, use: (there: string) => Promise<T>): Promise<T> {
    const upload = randomUUID()
    const size = this.pieceBytes
    let there: string | undefined
    const handle = await open(file, 'r')
    try {
      const buffer = Buffer.alloc(size)
      for (let offset = 0; there === undefined; ) {
        const { bytesRead } = await handle.read(buffer, 0, size, offset)
        const last = bytesRead < size
        const piece = { upload, fileName: basename(file), offset, data: buffer.toString('base64', 0, bytesRead), last }
        const { path } = (await this.request(host, 'files:stage', piece, actor)) as { path?: unknown }
        offset += bytesRead
        if (!last) continue
        if (typeof path !== 'string')
          throw new SmError('SM_ERR_BRIDGE_BAD_MESSAGE', {
            reason: `host '${host}' said no path for a file sent whole`,
          })
        there = path
      }
      return await use(there)
    } finally {
      await handle.close().catch(() => {})
      // Taken or not, it is not left to wait there (a refused upload, a failed update).
      await this.request(host, 'files:unstage', { upload }, actor).catch((error: unknown) =>
        this.#logger.warn(
          `nats: a file sent to host '${host}' was not removed there (it goes in 10 minutes): ${toSmError(error).message}`,
        ),
      )
    }
  }

  /**
   * Takes in the host's facts the log does not have yet, page by page, in order; exactly once
   * (the log keeps, in the same transaction, how far it has taken in each host's). One sync per
   * host at a time; one asked for meanwhile runs once more after it.
   */
  sync(host: string): Promise<void> {
    const running = this.#syncs.get(host)
    if (running) {
      running.again = true
      return running.running
    }
    const entry = { running: Promise.resolve(), again: false }
    entry.running = (async () => {
      try {
        do {
          entry.again = false
          await this.#pull(host)
        } while (entry.again)
      } finally {
        this.#syncs.delete(host)
      }
    })()
    this.#syncs.set(host, entry)
    return entry.running
  }

  async #pull(host: string): Promise<void> {
    // Its log as its last beat named it: one made again (its data directory wiped) is read from its start.
    const log = this.#hosts.get(host)?.log
    for (;;) {
      const taken = await this.#scope.request('events:origin', { origin: host })
      const renewed = log !== undefined && taken.log !== undefined && taken.log !== log
      if (renewed)
        this.#logger.warn(
          `nats: host '${host}' has a new event log (its data directory was made again): taking it in from its start`,
        )
      const events = (await this.request(
        host,
        'events:read',
        { afterSeq: renewed ? 0 : taken.seq, limit: SYNC_PAGE, types: hostFactTypes(this.#scope.catalogue) },
        'core',
      )) as StoredEvent[]
      if (events.length === 0) return
      // A host speaks for its own servers only, at times it could know, as itself: the rest is
      // refused, each with its code in the log (the cursor still moves past it).
      await this.#refreshOwners(true)
      const { admitted, refused } = admitHostFacts(host, events, this.#owners, this.#scope.catalogue)
      this.#logRefused(host, refused)
      const last = events.at(-1)?.seq
      await this.#scope.request('events:ingest', {
        origin: host,
        events: admitted,
        through: typeof last === 'number' && Number.isSafeInteger(last) ? last : undefined,
        ...(log === undefined ? {} : { log }),
      })
      // Its new servers and its removals are its own from now on: the owners follow what went in.
      for (const event of admitted) {
        if (event.type === 'servers:added') {
          const { name, addedAt } = (event.payload as { server: { name: string; addedAt: string } }).server
          this.#owners.set(name, { host, addedAt })
        } else if (event.type === 'servers:removed') this.#owners.delete((event.payload as { name: string }).name)
      }
      if (events.length < SYNC_PAGE) return
    }
  }

  /** Says in the log, with its code, each fact of a host that was refused (the first few of a page, then how many more). */
  #logRefused(host: string, refused: readonly RefusedFact[]): void {
    for (const fact of refused.slice(0, REFUSALS_LOGGED)) {
      const error = new SmError('SM_ERR_BRIDGE_HOST_FACT_REFUSED', {
        host,
        seq: String(fact.seq).slice(0, 20),
        type: fact.type,
        reason: fact.reason,
      })
      this.#logger.warn(`nats: [${error.code}] ${error.message}`)
    }
    if (refused.length > REFUSALS_LOGGED)
      this.#logger.warn(
        `nats: [SM_ERR_BRIDGE_HOST_FACT_REFUSED] and ${refused.length - REFUSALS_LOGGED} more facts of host '${host}' were refused in the same page`,
      )
  }

  /** Whether `host` may speak for `server`: its own, or a name nobody holds yet (its new server). */
  #speaksFor(host: string, server: string | undefined): boolean {
    return server === undefined || !this.#owners.has(server) || this.#owners.get(server)?.host === host
  }

  /** Reads the registry again; `strict`: a failure throws (a host's facts are never judged against an old one). */
  async #refreshOwners(strict = false): Promise<void> {
    try {
      const servers = await this.#scope.request('servers:list', {})
      this.#owners = new Map(servers.map((s) => [s.name, { host: s.host, addedAt: s.addedAt }]))
    } catch (error) {
      if (strict) throw error
      this.#logger.debug(`nats: the servers' hosts are not known: ${toSmError(error).message}`)
    }
  }

  /**
   * Gives a host the manager's value of each shared setting it does not have yet (when it joins,
   * and at each change here): its servers then run as the manager's settings say.
   */
  #share(host: string, keys: readonly string[]): Promise<void> {
    // One share at a time per host, each reading the manager's values as it goes: a join's share
    // and a change's never cross (a value read before a change set after it).
    const next = (this.#sharing.get(host) ?? Promise.resolve()).then(() => this.#shareNow(host, keys))
    this.#sharing.set(host, next)
    return next
  }

  async #shareNow(host: string, keys: readonly string[]): Promise<void> {
    try {
      for (const key of keys) {
        const { value } = await this.#scope.request('settings:get', { key })
        const theirs = (await this.request(host, 'settings:get', { key }, MANAGER_ACTOR)) as { value?: unknown }
        if (isDeepStrictEqual(theirs.value, value)) continue
        await this.request(host, 'settings:set', { key, value, mode: 'replace' }, MANAGER_ACTOR)
      }
    } catch (error) {
      this.#logger.warn(
        `nats: host '${host}' did not take this manager's settings (${keys.join(', ')}): ${toSmError(error).message}; it takes them when it joins again`,
      )
    }
  }

  #hostPrefix(host: string): string {
    return `${this.#prefix}.agent.${host}`
  }

  #joined(connection: NatsConnection): void {
    const prefix = this.#prefix
    connection.subscribe(allSubjects(prefix, 'req'), {
      queue: 'manager',
      callback: (error, message) => {
        if (error) return this.#logger.warn(`nats: the request subscription ended: ${error.message}`)
        void answerRequest(this.#scope, prefix, message, BRIDGE_ACTOR, this.#ready)
      },
    })
    // Bus listeners once (they publish on whichever connection is current); subscriptions per connection.
    this.#events ??= publishEvents(this.#scope, this.#link, prefix)
    this.#settings ??= this.#scope.on('after_setting_update', ({ key }) => {
      if (!SHARED_SETTING.test(key)) return
      for (const host of this.#hosts.values()) if (host.online) void this.#share(host.name, [key])
    })
    const agents = `${prefix}.agent.*`
    const on = (what: string, handle: (host: string, message: Msg) => void) =>
      connection.subscribe(`${agents}.${what}`, {
        callback: (error, message) => {
          if (error) return
          // The subject names the host: the broker let only that host's agent publish on it.
          const host = message.subject.split('.')[prefix.split('.').length + 1] ?? ''
          handle(host, message)
        },
      })
    on('hb', (host, message) => this.#beat(host, message))
    on('bye', (host) => this.#gone(host, 'it said goodbye'))
    on('fact', (host) => void (this.#hosts.get(host)?.online ? this.#syncLogged(host) : undefined))
    on('hook', (host, message) => void this.#hook(host, message))
    connection.subscribe(`${agents}.evt.>`, {
      callback: (error, message) => void (error || this.#relay(message)),
    })
    this.#silence ??= setInterval(() => this.#checkSilence(), HOST_SILENT_MS / 3)
  }

  /** A host agent's beat: its report, checked (it comes from another machine). */
  #beat(name: string, message: Msg): void {
    if (!isSubjectToken(name) || (!this.#hosts.has(name) && this.#hosts.size >= MAX_HOSTS)) return
    let report: ReturnType<typeof hostReport.parse>
    try {
      report = hostReport.parse(message.json())
    } catch (error) {
      this.#logger.debug(`nats: a beat from host '${name}' is not a host report: ${toSmError(error).message}`)
      return
    }
    this.#twins(name, `PID ${report.pid} on ${report.hostname}`)
    const now = new Date().toISOString()
    const known = this.#hosts.get(name)
    // The name is the subject's, not the report's: the report is only its word.
    this.#hosts.set(name, { ...report, name, online: true, since: known?.online ? known.since : now, lastSeen: now })
    if (!known?.online) {
      this.#logger.info(`nats: host '${name}' (${report.hostname}) is online`)
      void this.#scope.emit('nats:host_online', { name, hostname: report.hostname, version: report.version })
      void this.#share(name, sharedKeys(this.#scope.catalogue))
    }
    // What it recorded while the link or this manager was down comes in now, in order.
    if (!known?.online || report.log !== known.log || report.lastSeq > known.lastSeq) void this.#syncLogged(name)
    else void this.#refreshOwners()
  }

  /** Says once when two agents beat as one host (the same --name and credentials on two machines). */
  #twins(name: string, agent: string): void {
    const seen = this.#beaters.get(name)
    if (!seen) return void this.#beaters.set(name, { last: agent })
    if (seen.last === agent) return
    if (seen.before === agent && !seen.warned) {
      seen.warned = true
      this.#logger.warn(
        `nats: two agents beat as host '${name}' (${agent}, and ${seen.last}): give each machine its own --name and credentials (agent credentials <name>)`,
      )
    }
    seen.before = seen.last
    seen.last = agent
  }

  async #syncLogged(host: string): Promise<void> {
    try {
      await this.sync(host)
    } catch (error) {
      this.#logger.warn(`nats: the facts of host '${host}' could not be taken in yet: ${toSmError(error).message}`)
    }
  }

  #gone(name: string, reason: string): void {
    const known = this.#hosts.get(name)
    if (!known?.online) return
    this.#hosts.set(name, { ...known, online: false, since: new Date().toISOString() })
    this.#abandon(
      name,
      `it went offline during the command (${reason}); whether it was done is unknown: check with 'server-manager server status'`,
    )
    this.#logger.warn(`nats: host '${name}' is offline: ${reason}`)
    void this.#scope.emit('nats:host_offline', { name, lastSeen: known.lastSeen, reason })
  }

  /** Ends every request waiting on `host` (on every host: undefined) with SM_ERR_HOST_UNREACHABLE. */
  #abandon(host: string | undefined, reason: string): void {
    for (const [name, waiting] of this.#waiting) {
      if (host !== undefined && name !== host) continue
      for (const lose of waiting) lose(new SmError('SM_ERR_HOST_UNREACHABLE', { host: name, reason }))
      waiting.clear()
    }
  }

  #checkSilence(): void {
    const now = Date.now()
    for (const host of this.#hosts.values())
      if (host.online && now - Date.parse(host.lastSeen) > HOST_SILENT_MS)
        this.#gone(host.name, `no word from it for ${HOST_SILENT_MS / 1000} s`)
  }

  /**
   * A host's live event (a console line, a sample, a task's progress): delivered to this bus's
   * listeners as it happens. Its facts are not: they come in order through `sync`, recorded once.
   */
  #relay(message: Msg): void {
    const host = message.subject.split('.')[this.#prefix.split('.').length + 1] ?? ''
    const event = nameOfSubject(this.#hostPrefix(host), 'evt', message.subject)
    if (!event || !isHostEvent(event)) return
    let body: { payload?: unknown; meta?: { actor?: unknown; seq?: unknown } }
    try {
      body = message.json()
    } catch {
      return
    }
    if (typeof body?.meta?.seq === 'number' && isHostFact(event, this.#scope.catalogue)) return // a fact of its servers: sync brings it
    // Only about its own servers: a host's word about another's is not relayed.
    const about = event.startsWith('servers:') ? serverOf(body.payload) : undefined
    if (about !== undefined && this.#owners.get(about)?.host !== host) return
    const actor = typeof body?.meta?.actor === 'string' ? body.meta.actor : `host:${host}`
    // Its tasks by the names the manager gave them (servers:begin's reply): `<host>/<id>`.
    const task = body.payload as { id?: unknown } | null
    const payload =
      event.startsWith('tasks:') && typeof task?.id === 'string'
        ? { ...task, id: hostTaskId(host, task.id) }
        : body.payload
    void this.#scope.relay(event, payload, actor).catch((error: unknown) => {
      this.#logger.debug(`nats: an event '${event}' of host '${host}' was not delivered: ${toSmError(error).message}`)
    })
  }

  /**
   * A host asks the plugins about an action on one of its servers (`before_*`): the hook runs on
   * this bus, where the plugins are, and the first veto goes back.
   */
  async #hook(host: string, message: Msg): Promise<void> {
    // Only to that host's own inbox (the reply subject is its word), and only from a host that has joined.
    if (!message.reply?.startsWith(`_INBOX.agent.${host}.`) || !this.#hosts.get(host)?.online) return
    let body: { event?: unknown; payload?: unknown; actor?: unknown }
    try {
      body = message.json()
    } catch {
      return
    }
    const event =
      typeof body.event === 'string' &&
      body.event.startsWith('before_') &&
      isServerHook(body.event, this.#scope.catalogue)
        ? body.event
        : undefined
    const actor = typeof body.actor === 'string' ? body.actor : `host:${host}`
    let veto: { cancel: true; reason?: string; by: string } | undefined
    const refused = event ? badPayload(this.#scope.catalogue, event, body.payload) : undefined
    // A payload its action's schema does not read is refused, with its code; then its own servers'
    // actions only: a host asking about another's is not passed on.
    if (event && refused) {
      this.#logger.warn(`nats: host '${host}' asked '${event}' with a payload that does not fit: ${refused.message}`)
    } else if (event && !this.#speaksFor(host, serverOf(body.payload))) {
      this.#logger.warn(`nats: host '${host}' asked '${event}' about a server it does not hold; ignored`)
    } else if (event) {
      await this.#ready
      try {
        const report = await this.#scope.relay(event, body.payload, actor)
        for (const { owner, value } of report.successes)
          if (isVeto(value)) {
            veto = { cancel: true, reason: value.reason, by: owner }
            break
          }
      } catch (error) {
        this.#logger.warn(`nats: the hook '${event}' of host '${host}' failed here: ${toSmError(error).message}`)
      }
    }
    try {
      message.respond(JSON.stringify(refused ? { error: refused.toWire() } : veto ? { veto } : {}))
    } catch {
      // Closed meanwhile.
    }
  }
}

/** Why a hook's payload that came from elsewhere does not fit its action's schema (SM_ERR_BUS_BAD_PAYLOAD), if it does not. */
function badPayload(catalogue: Catalogue, event: string, payload: unknown): SmError | undefined {
  try {
    catalogue.checkEvent(event, payload)
    return undefined
  } catch (error) {
    return toSmError(error)
  }
}

/** The declared settings a host takes from its manager (SHARED_SETTING). */
function sharedKeys(catalogue: Catalogue): string[] {
  return catalogue
    .settings()
    .map((entry) => entry.key)
    .filter((key) => SHARED_SETTING.test(key))
}
