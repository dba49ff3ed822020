import { type ActionMap, type BusScope, type Logger, reasonOf, reportObserved } from '../../kernel'
import { BoundedMap } from '../../lib/bounded-map'
import type { ServerRecord } from './contract'
import { SESSIONS_END } from './player-history'
import { type ListHead, listHead, namesFollow, type PlayerList, splitNames } from './player-list'
import { consoleMessage, type GameProfile, gameProfile, matches, type PlayersProtocol } from './profiles'
import type { ServerStatus } from './supervisor/run-files'

interface Player {
  readonly name: string
  readonly id: string | undefined
}

/** What the tracker knows of one server whose profile can tell who is online. */
interface Session {
  readonly name: string
  readonly profile: GameProfile
  readonly players: PlayersProtocol
  /** Who is online by name; undefined until a list reply or a start says (the manager came while it ran). */
  online: Map<string, Player> | undefined
  /** Online players a list counted but did not name. */
  unnamed: number
  max: number | undefined
  /** Ids named before their player's join (Java's UUID line), by name. */
  readonly ids: Map<string, string>
  /** A list reply's first line, whose names are the next line. */
  namesNext: ListHead | undefined
  /** The facts being reported, one after another. */
  reports: Promise<void>
}

/** How many ids named before a join are remembered per server (a join normally follows at once). */
const MAX_PENDING_IDS = 100

/**
 * Who is online on each server the manager follows, from its console: a join or leave line (the
 * profile's patterns, on the message with its prefix taken off) is reported as an observed
 * `player_join` / `player_leave` (hooks, then a fact), in the order the game printed them; a list
 * reply, whoever asked for it, sets the online set whole (no facts: it says who is there, not who
 * came); a game that ends (stopped, crashed) ends everyone's session with a leave. Only the manager
 * feeds it (`start`); elsewhere it knows nothing.
 */
export class PlayerTracker {
  readonly #bus: BusScope
  readonly #logger: Logger
  readonly #find: (name: string) => Promise<ServerRecord>
  /** null: the server's profile cannot tell who is online. */
  readonly #sessions = new Map<string, Session | null>()
  readonly #loading = new Map<string, Promise<void>>()
  #active = false

  constructor(bus: BusScope, logger: Logger, find: (name: string) => Promise<ServerRecord>) {
    this.#bus = bus
    this.#logger = logger
    this.#find = find
  }

  /** The manager follows the servers from now on. */
  start(): void {
    this.#active = true
  }

  /** The manager stops following: what it knew is dropped (the next manager asks again). */
  close(): void {
    this.#active = false
    this.#sessions.clear()
    this.#loading.clear()
  }

  /** Forgets a server: removed, added anew, or about to be listed afresh. */
  forget(serverName: string): void {
    this.#sessions.delete(serverName)
    this.#loading.delete(serverName)
  }

  /** Who is online on a server, when the tracker knows. */
  now(serverName: string): PlayerList | undefined {
    const session = this.#sessions.get(serverName)
    if (!session?.online) return undefined
    return { online: session.online.size + session.unnamed, max: session.max, names: [...session.online.keys()] }
  }

  /** One line of a followed server's console. */
  line(serverName: string, line: string): void {
    void this.#with(serverName, (session) => {
      this.#read(session, line)
      return undefined
    })
  }

  /**
   * A server's status changed: a game that ended ends every session; a new run begins with
   * nobody. Resolves once the leaves it reports (and those before them) are recorded, so a stop
   * is answered with its players' leaves in the log.
   */
  statusChanged(change: {
    serverName: string
    status: ServerStatus
    previousStatus: ServerStatus
  }): Promise<void> | undefined {
    return this.#with(change.serverName, (session) => {
      if (SESSIONS_END.includes(change.status)) {
        const reason = change.status === 'crashed' ? 'server_crashed' : 'server_stopped'
        for (const player of session.online?.values() ?? []) this.#leave(session, player, reason)
        Object.assign(session, { online: new Map(), unnamed: 0, namesNext: undefined })
        session.ids.clear()
        return session.reports
      } else if (change.status === 'running' && change.previousStatus === 'starting' && !session.online) {
        // Nobody can join before the game is ready.
        Object.assign(session, { online: new Map(), unnamed: 0 })
      }
      return undefined
    })
  }

  /** Runs `fn` on the server's session, in arrival order also while its record is being read. */
  #with(serverName: string, fn: (session: Session) => Promise<void> | undefined): Promise<void> | undefined {
    if (!this.#active) return undefined
    const session = this.#sessions.get(serverName)
    if (session === null) return undefined
    if (session) return fn(session)
    let loading = this.#loading.get(serverName)
    if (!loading) {
      const load: Promise<void> = this.#find(serverName).then(
        (server) => {
          if (this.#loading.get(serverName) !== load) return // forgotten meanwhile
          this.#loading.delete(serverName)
          // A server on another host: its agent follows its players (their facts come with its others).
          this.#sessions.set(serverName, server.host === undefined ? newSession(serverName, gameProfile(server)) : null)
        },
        (error: unknown) => {
          if (this.#loading.get(serverName) === load) this.#loading.delete(serverName)
          this.#logger.warn(`Players of '${serverName}' cannot be followed: ${reasonOf(error)}`)
        },
      )
      loading = load
      this.#loading.set(serverName, load)
    }
    return loading.then(() => {
      const loaded = this.#sessions.get(serverName)
      return loaded ? fn(loaded) : undefined
    })
  }

  #read(session: Session, line: string): void {
    const { players, profile } = session
    const message = consoleMessage(profile, line).trim()
    const pending = session.namesNext
    if (pending) {
      session.namesNext = undefined
      // Bedrock prints the names bare; a message with the game's prefix is something else.
      const bare = !profile.messagePattern || !matches(profile.messagePattern, line)
      this.#listed(session, pending, bare ? splitNames(message) : [])
      if (bare) return
    }
    const head = listHead(players, message)
    if (head) {
      if (namesFollow(head)) session.namesNext = head
      else this.#listed(session, head, splitNames(head.names ?? ''))
      return
    }
    const named = players.identify ? matches(players.identify, message)?.groups : undefined
    if (named?.name && named.id) {
      session.ids.set(named.name, named.id)
      return
    }
    const joined = players.join ? matches(players.join, message)?.groups : undefined
    if (joined?.name) {
      const player = { name: joined.name, id: joined.id || session.ids.get(joined.name) || undefined }
      session.ids.delete(player.name)
      session.online?.set(player.name, player)
      this.#report(session, 'player_join', { serverName: session.name, name: player.name, ...idOf(player) })
      return
    }
    const left = players.leave ? matches(players.leave, message)?.groups : undefined
    if (left?.name) {
      const known = session.online?.get(left.name)
      if (session.online && !session.online.delete(left.name) && session.unnamed > 0) session.unnamed--
      this.#leave(session, { name: left.name, id: left.id || known?.id }, 'left')
    }
  }

  /** A list reply: who is online now, as a whole (joins and leaves it implies are not facts). */
  #listed(session: Session, head: ListHead, names: readonly string[]): void {
    const online = new Map<string, Player>()
    for (const name of names) online.set(name, session.online?.get(name) ?? { name, id: session.ids.get(name) })
    session.online = online
    session.unnamed = Math.max(0, head.online - online.size)
    session.max = head.max ?? session.max
  }

  #leave(session: Session, player: Player, reason: ActionMap['player_leave']['reason']): void {
    this.#report(session, 'player_leave', { serverName: session.name, name: player.name, ...idOf(player), reason })
  }

  /** Reports an observed join or leave (hooks, then the fact), after the ones before it. */
  #report<A extends 'player_join' | 'player_leave'>(session: Session, action: A, payload: ActionMap[A]): void {
    session.reports = session.reports
      .then(async () => {
        const { vetoedBy } = await reportObserved(this.#bus, {
          before: `before_${action}`,
          after: `after_${action}`,
          payload: payload as never,
        })
        if (vetoedBy)
          this.#logger.warn(`${vetoedBy} tried to veto before_${action}, which reports what already happened; ignored.`)
      })
      .catch((error: unknown) =>
        this.#logger.warn(
          `A ${action.replace('_', ' ')} of '${payload.name}' on '${session.name}' was not recorded: ${reasonOf(error)}`,
        ),
      )
  }
}

function newSession(name: string, profile: GameProfile): Session | null {
  const players = profile.players
  if (!players) return null
  return {
    name,
    profile,
    players,
    online: undefined,
    unnamed: 0,
    max: undefined,
    ids: new BoundedMap(MAX_PENDING_IDS),
    namesNext: undefined,
    reports: Promise.resolve(),
  }
}

function idOf(player: Player): { id?: string } {
  return player.id ? { id: player.id } : {}
}
