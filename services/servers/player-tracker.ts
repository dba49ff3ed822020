import { type ActionMap, type BusScope, type Logger, reasonOf, reportObserved } from '../../kernel'
import { BoundedMap } from '../../lib/bounded-map'
import type { PlayerRecord, ServerRecord } from './contract'
import { serverActor } from './observed-actor'
import { SESSIONS_END } from './player-history'
import { type ListHead, listHead, namesFollow, type PlayerList, splitNames } from './player-list'
import { consoleMessage, type GameProfile, gameProfile, matches, type PlayersProtocol } from './profiles'
import type { RunFiles, ServerStatus } from './supervisor/run-files'

/** An observed join or leave, with its payload: the hooks and the fact it makes are its action's. */
type Observed =
  | { readonly action: 'player_join'; readonly payload: ActionMap['player_join'] }
  | { readonly action: 'player_leave'; readonly payload: ActionMap['player_leave'] }

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
  /** When this tracker last wrote until when it followed who is online (`RunFiles.playersSeen`), in ms. */
  seenWritten: number
}

/** How many ids named before a join are remembered per server (a join normally follows at once). */
const MAX_PENDING_IDS = 100

/**
 * How often, at most, the tracker writes until when it followed a server with someone online (on
 * its console lines and resource samples): a manager killed outright loses at most this much of
 * its players' time.
 */
const SEEN_EVERY_MS = 5_000

/** What the tracker reads and writes besides the bus. */
export interface TrackerStore {
  /** A server's record, to know its profile and host. */
  find(name: string): Promise<ServerRecord>
  /** A server's player history (its open sessions are the players the log has online). */
  history(name: string): Promise<PlayerRecord[]>
  /** A server's run files (`playersSeen`). */
  files(name: string): RunFiles
}

/**
 * Who is online on each server the manager follows, from its console: a join or leave line (the
 * profile's patterns, on the message with its prefix taken off) is reported as an observed
 * `player_join` / `player_leave` (hooks, then a fact), in the order the game printed them; a list
 * reply, whoever asked for it, sets the online set whole (no facts: it says who is there, not who
 * came); a game that ends (stopped, crashed) ends everyone's session with a leave. Only the manager
 * feeds it (`start`); elsewhere it knows nothing.
 *
 * A manager that was down (stopped, or killed) saw no leave meanwhile: while someone is online the
 * tracker writes until when it followed the server (`RunFiles.playersSeen`), and the first list
 * reply a tracker reads of a game it did not follow (a manager's start asks for one) ends the
 * sessions the history still has open of players the reply does not name, as `unseen` leaves at
 * that time: the time played never counts the time nobody watched. The facts are the game's
 * (actor `server:<name>`), whoever's request made the tracker look.
 */
export class PlayerTracker {
  readonly #bus: BusScope
  readonly #logger: Logger
  readonly #store: TrackerStore
  /** null: the server's profile cannot tell who is online. */
  readonly #sessions = new Map<string, Session | null>()
  readonly #loading = new Map<string, Promise<void>>()
  #active = false

  constructor(bus: BusScope, logger: Logger, store: TrackerStore) {
    this.#bus = bus
    this.#logger = logger
    this.#store = store
  }

  /** The manager follows the servers from now on. */
  start(): void {
    this.#active = true
  }

  /** The manager stops following: what it knew is dropped (the next manager asks again). */
  close(): void {
    for (const session of this.#sessions.values()) if (session) this.#seen(session, true)
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

  /** How many are online on a server, when the tracker knows: what `now` says, without making the list of names. */
  count(serverName: string): number | undefined {
    const session = this.#sessions.get(serverName)
    return session?.online ? session.online.size + session.unnamed : undefined
  }

  /** One line of a followed server's console. */
  line(serverName: string, line: string): void {
    void this.#with(serverName, (session) => {
      this.#read(session, line)
      this.#seen(session)
      return undefined
    })
  }

  /** A followed server's supervisor sent a resource sample: the tracker still follows it. */
  sampled(serverName: string): void {
    const session = this.#sessions.get(serverName)
    if (session) this.#seen(session)
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
      const load: Promise<void> = this.#store.find(serverName).then(
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
      this.#report(session, {
        action: 'player_join',
        payload: { serverName: session.name, name: player.name, ...idOf(player) },
      })
      this.#seen(session, true)
      return
    }
    const left = players.leave ? matches(players.leave, message)?.groups : undefined
    if (left?.name) {
      const known = session.online?.get(left.name)
      if (session.online && !session.online.delete(left.name) && session.unnamed > 0) session.unnamed--
      this.#leave(session, { name: left.name, id: left.id || known?.id }, 'left')
    }
  }

  /**
   * A list reply: who is online now, as a whole (joins and leaves it implies are not facts, but
   * for the leaves of a game nobody followed: `#endUnseen`).
   */
  #listed(session: Session, head: ListHead, names: readonly string[]): void {
    const resumed = session.online === undefined
    const online = new Map<string, Player>()
    for (const name of names) online.set(name, session.online?.get(name) ?? { name, id: session.ids.get(name) })
    session.online = online
    session.unnamed = Math.max(0, head.online - online.size)
    session.max = head.max ?? session.max
    // A count without every name cannot tell who left.
    if (resumed && session.unnamed === 0) this.#endUnseen(session, this.#store.files(session.name).readPlayersSeen())
    this.#seen(session, true)
  }

  /**
   * The sessions the history has open of players a game nobody followed no longer lists end when
   * the last tracker that followed it last knew them online (`seen`), never before they joined
   * (the time after is time nobody saw them play).
   */
  #endUnseen(session: Session, seen: string | undefined): void {
    this.#queue(
      session,
      async () => {
        const open = (await this.#store.history(session.name)).filter((p) => p.online && !session.online?.has(p.name))
        for (const player of open) {
          const since = player.onlineSince ?? player.lastSeen
          const at = seen !== undefined && Date.parse(seen) > Date.parse(since) ? seen : since
          await this.#observe({
            action: 'player_leave',
            payload: { serverName: session.name, name: player.name, ...idOf(player), reason: 'unseen', at },
          })
        }
      },
      'A look at who left unseen',
    )
  }

  /**
   * Writes that the tracker follows the server now, while someone is online: at once (`now`), or
   * at most every SEEN_EVERY_MS. A failure is said and left to the next write.
   */
  #seen(session: Session, now = false): void {
    if (!session.online?.size && !session.unnamed) return
    const time = Date.now()
    if (!now && time - session.seenWritten < SEEN_EVERY_MS) return
    session.seenWritten = time
    try {
      this.#store.files(session.name).writePlayersSeen(new Date(time).toISOString())
    } catch (error) {
      this.#logger.warn(`Until when the players of '${session.name}' were followed is not written: ${reasonOf(error)}`)
    }
  }

  #leave(session: Session, player: Player, reason: ActionMap['player_leave']['reason']): void {
    this.#report(session, {
      action: 'player_leave',
      payload: { serverName: session.name, name: player.name, ...idOf(player), reason },
    })
  }

  /** Reports an observed join or leave (hooks, then the fact), after the ones before it. */
  #report(session: Session, observed: Observed): void {
    this.#queue(
      session,
      () => this.#observe(observed),
      `A ${observed.action.replace('_', ' ')} of '${observed.payload.name}' on '${session.name}'`,
    )
  }

  /** Runs `work` after the session's reports before it; what fails is said (`what` was not recorded). */
  #queue(session: Session, work: () => Promise<void>, what: string): void {
    session.reports = session.reports
      .then(work)
      .catch((error: unknown) => this.#logger.warn(`${what} was not recorded: ${reasonOf(error)}`))
  }

  /** The hooks, then the fact, of a join or leave: the game's doing (actor `server:<name>`). */
  async #observe({ action, payload }: Observed): Promise<void> {
    const actor = serverActor(payload.serverName)
    const { vetoedBy } =
      action === 'player_join'
        ? await reportObserved(this.#bus, { before: 'before_player_join', after: 'after_player_join', payload, actor })
        : await reportObserved(this.#bus, {
            before: 'before_player_leave',
            after: 'after_player_leave',
            payload,
            actor,
          })
    if (vetoedBy)
      this.#logger.warn(`${vetoedBy} tried to veto before_${action}, which reports what already happened; ignored.`)
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
    seenWritten: 0,
  }
}

function idOf(player: { readonly id?: string | undefined }): { id?: string } {
  return player.id ? { id: player.id } : {}
}
