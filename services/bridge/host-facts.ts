import type { Catalogue } from '../../kernel'
import type { StoredEvent } from '../events/contract'
import { isServerHook } from './contract'

/** A server name as `server add` takes it (services/servers/describe-server.ts). */
const SERVER_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/
/**
 * How far a host's clock may be ahead of the manager's, or a time it gives be before the time it
 * bounds: Kerberos's default tolerance. A host further off has its facts refused (run NTP there).
 */
export const CLOCK_SKEW_MS = 5 * 60_000
/** The longest actor a host's fact may carry (the manager's own are far shorter). */
const MAX_ACTOR = 200

/**
 * The `servers:*` facts a host records (services/servers/index.ts declares them), each with where
 * its payload names a server. Live-only events (`servers:console`, `servers:sampled`,
 * `servers:backup_progress`) are never facts: a host sending one as a fact oversteps.
 */
const SERVER_FACTS: Readonly<Record<string, readonly string[]>> = {
  'servers:added': ['server.name'],
  'servers:removed': ['name'],
  'servers:eula_accepted': ['serverName'],
  'servers:edited': ['name'],
  'servers:backup_deleted': ['name'],
  'servers:setting_changed': ['name'],
  'servers:schedule_added': ['schedule.server'],
  'servers:schedule_removed': ['server'],
  'servers:schedule_ran': ['server'],
}
/** The keys that name a server somewhere: present where a kind does not declare them, they are a decoy. */
const SERVER_KEYS = ['serverName', 'server', 'name'] as const
/** The actions whose `name` is a player's, not a server's. */
const PLAYER_ACTIONS: ReadonlySet<string> = new Set(['player_join', 'player_leave'])
/** Keys the ingest itself writes (`origin`) or reads (`at`) on any fact: not a decoy. */
const INGEST_KEYS: ReadonlySet<string> = new Set(['at', 'origin'])

/** A server this manager knows, as its registry says: the host it is on (none: this machine) and when it was added. */
export interface KnownServer {
  readonly host: string | undefined
  readonly addedAt: string
}

/** One of a host's facts that may not enter the log, and why. */
export interface RefusedFact {
  readonly seq: unknown
  readonly type: string
  readonly reason: string
}

/**
 * Which of a host's facts may enter this manager's log, the host's word checked as another
 * machine's input (its credentials are all that authenticate it):
 *
 * - its kind is one a host records about its servers (SERVER_FACTS, or `after_*` of a server's or
 *   its files' action), shaped as declared, with no field beside the declared ones;
 * - every field that names a server names one of that host's (registered with it here, or added by
 *   an earlier fact of the same batch; a new one a name nobody holds, that `server add` takes);
 * - its times are what the host could know: recorded (`time`) not in the future, happened (`at`)
 *   not after it was recorded, and neither before its server was added (CLOCK_SKEW_MS allowed);
 * - its actor is recorded as the host's: `host:<host>/<its actor>` (`host:node2/http:admin`: the
 *   host says an admin asked; only the host's credentials vouch for it).
 *
 * `servers` is the manager's registry; the facts are taken in order (a server added earlier in
 * them is the host's for the later ones).
 */
export function admitHostFacts(
  host: string,
  events: readonly StoredEvent[],
  servers: ReadonlyMap<string, KnownServer>,
  catalogue: Catalogue,
  now: number = Date.now(),
): { admitted: StoredEvent[]; refused: RefusedFact[] } {
  const known = new Map(servers)
  const admitted: StoredEvent[] = []
  const refused: RefusedFact[] = []
  for (const event of events) {
    const reason = refusal(host, event, known, catalogue, now)
    if (reason !== undefined) {
      refused.push({ seq: event?.seq, type: typeof event?.type === 'string' ? event.type.slice(0, 80) : '?', reason })
      continue
    }
    admitted.push({ ...event, actor: `host:${host}/${event.actor}` })
    // Its new server is its own for the facts after it; a removed one stays its own in this batch.
    if (event.type === 'servers:added') {
      const server = (event.payload as { server: { name: string; addedAt: string } }).server
      known.set(server.name, { host, addedAt: server.addedAt })
    }
  }
  return { admitted, refused }
}

/** Why a host's fact may not enter the log, or undefined when it may. */
function refusal(
  host: string,
  event: StoredEvent,
  known: Map<string, KnownServer>,
  catalogue: Catalogue,
  now: number,
): string | undefined {
  if (typeof event?.type !== 'string' || !Number.isSafeInteger(event.seq) || event.seq < 1)
    return 'it is not a fact of a log (no type or sequence number)'
  const fields = serverFields(event.type, catalogue)
  if (!fields) return `a host does not record '${event.type.slice(0, 80)}' (only its servers' facts)`
  if (typeof event.actor !== 'string' || event.actor === '' || event.actor.length > MAX_ACTOR)
    return `its actor is not a name of at most ${MAX_ACTOR} characters`
  if (/\p{Cc}/u.test(event.actor)) return 'its actor holds control characters'
  const payload = event.payload
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) return 'its payload is not an object'
  const shape = shapeRefusal(event.type, payload as Record<string, unknown>, catalogue)
  if (shape) return shape
  const decoy = decoyKey(event.type, fields, payload as Record<string, unknown>)
  if (decoy) return `its '${decoy}' names a server where a '${event.type}' names none (a decoy)`
  const names: string[] = []
  for (const path of fields) {
    const value = valueAt(payload, path)
    if (typeof value !== 'string') return `its '${path}' names no server`
    names.push(value)
  }
  for (const name of names) {
    const held = known.get(name)
    if (event.type === 'servers:added') {
      if (!SERVER_NAME.test(name)) return `'${name.slice(0, 80)}' is not a server name 'server add' takes`
      if (held && held.host !== host) return `the server '${name}' is not one of host '${host}' (${holder(held)})`
    } else if (!held) {
      // An install that failed names a server that never was: a name nobody holds, as a new one's.
      if (!(event.type === 'after_server_install' && SERVER_NAME.test(name)))
        return `no server '${name.slice(0, 80)}' is one of host '${host}'`
    } else if (held.host !== host) return `the server '${name}' is not one of host '${host}' (${holder(held)})`
  }
  if (event.type === 'servers:removed' && 'forgotten' in payload)
    return "'forgotten' is this manager's word (server remove --forget), never a host's"
  return timeRefusal(event, names[0] === undefined ? undefined : known.get(names[0]), now)
}

/** Where a kind names a server, or undefined for a kind a host does not record. */
function serverFields(type: string, catalogue: Catalogue): readonly string[] | undefined {
  return SERVER_FACTS[type] ?? (type.startsWith('after_') && isServerHook(type, catalogue) ? ['serverName'] : undefined)
}

/** A declared fact must fit its schema and hold nothing beside it (a field nobody checks is where a lie hides). */
function shapeRefusal(type: string, payload: Record<string, unknown>, catalogue: Catalogue): string | undefined {
  if (!(type in SERVER_FACTS)) return undefined
  let parsed: unknown
  try {
    parsed = catalogue.checkEvent(type, payload)
  } catch (error) {
    return `it is not shaped as '${type}' declares (${(error as Error).message.slice(0, 200)})`
  }
  const extra = extraKey(payload, parsed, '', true)
  return extra ? `it holds '${extra}', which '${type}' does not declare` : undefined
}

/** The first key of `given` (deep) that the schema's reading of it dropped. */
function extraKey(given: unknown, parsed: unknown, at: string, top: boolean): string | undefined {
  if (given === null || typeof given !== 'object' || parsed === null || typeof parsed !== 'object') return undefined
  if (Array.isArray(given)) {
    if (!Array.isArray(parsed)) return undefined
    for (let i = 0; i < given.length; i++) {
      const extra = extraKey(given[i], parsed[i], `${at}[${i}]`, false)
      if (extra) return extra
    }
    return undefined
  }
  for (const [key, value] of Object.entries(given)) {
    if (top && INGEST_KEYS.has(key)) continue
    const path = at ? `${at}.${key}` : key
    if (!Object.hasOwn(parsed, key)) return path
    const extra = extraKey(value, (parsed as Record<string, unknown>)[key], path, false)
    if (extra) return extra
  }
  return undefined
}

/** A top-level key that names a server where the kind declares no server there. */
function decoyKey(type: string, fields: readonly string[], payload: Record<string, unknown>): string | undefined {
  const declared = new Set(fields.map((path) => path.split('.')[0]))
  const action = /^after_(.+)$/.exec(type)?.[1]
  for (const key of SERVER_KEYS) {
    if (!(key in payload) || declared.has(key)) continue
    if (key === 'name' && action !== undefined && PLAYER_ACTIONS.has(action)) continue // the player's name
    return key
  }
  return undefined
}

/** The times a host gives, against what it could know. */
function timeRefusal(event: StoredEvent, server: KnownServer | undefined, now: number): string | undefined {
  const recorded = Date.parse(event.time)
  if (!Number.isFinite(recorded)) return 'its time is not a time'
  if (recorded > now + CLOCK_SKEW_MS) return `it was recorded at ${event.time}, in this manager's future`
  const payload = event.payload as {
    at?: unknown
    lastKnown?: unknown
    server?: { addedAt?: unknown }
    schedule?: { addedAt?: unknown }
  }
  // `lastKnown`: when an ended game was last seen alive (its players' sessions close there).
  const times: [string, unknown][] = [
    ['at', payload.at],
    ['lastKnown', payload.lastKnown],
  ]
  if (event.type === 'servers:added') times.push(['server.addedAt', payload.server?.addedAt])
  if (event.type === 'servers:schedule_added') times.push(['schedule.addedAt', payload.schedule?.addedAt])
  // A server's own fact: nothing of it happened before it was added (its adding, when it was).
  const added =
    event.type === 'servers:added' ? Date.parse(String(payload.server?.addedAt)) : Date.parse(server?.addedAt ?? '')
  for (const [name, value] of times) {
    if (value === undefined && (name === 'at' || name === 'lastKnown')) continue
    const time = typeof value === 'string' ? Date.parse(value) : Number.NaN
    if (!Number.isFinite(time)) return `its '${name}' is not a time`
    if (time > recorded + CLOCK_SKEW_MS) return `its '${name}' (${value}) is after it was recorded (${event.time})`
    if (Number.isFinite(added) && time < added - CLOCK_SKEW_MS)
      return `its '${name}' (${value}) is before its server was added (${new Date(added).toISOString()})`
  }
  if (Number.isFinite(added) && recorded < added - CLOCK_SKEW_MS)
    return `it was recorded at ${event.time}, before its server was added (${new Date(added).toISOString()})`
  if (event.type === 'servers:added' && Math.abs(recorded - added) > CLOCK_SKEW_MS)
    return `its server was added at ${payload.server?.addedAt}, but the fact was recorded at ${event.time}`
  return undefined
}

function valueAt(payload: object, path: string): unknown {
  let value: unknown = payload
  for (const key of path.split('.'))
    value =
      value !== null && typeof value === 'object' && Object.hasOwn(value, key)
        ? (value as Record<string, unknown>)[key]
        : undefined
  return value
}

function holder(server: KnownServer): string {
  return server.host === undefined ? "it is this manager's own" : `it is on host '${server.host}'`
}
