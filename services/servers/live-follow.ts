import { type BusScope, type Logger, reasonOf, runInContext } from '../../kernel'
import { ACTIVE, type ServerRecord } from './contract'
import type { StatusIngest } from './status-ingest'
import { SupervisorClient } from './supervisor/client'
import type { RunStatus, ServerSample } from './supervisor/protocol'
import type { RunFiles } from './supervisor/run-files'

/** What the live follow tells whoever listens in (the manager's wiring, services/servers/index.ts). */
export interface FollowListener {
  /** A followed server's supervisor took a resource sample. */
  sample?(server: string, sample: ServerSample): void
  /**
   * The follow of a server whose supervisor this process did not start began: the manager's
   * start found it running, or its supervisor was replaced. What it printed before was not read.
   */
  resumed?(server: ServerRecord): void
}

/** What the live follow asks of process control (services/servers/control.ts). */
export interface FollowedControl {
  status(server: ServerRecord): Promise<RunStatus>
  /** A connection to the server's supervisor, a new one adopting a game that outlived its own. */
  adopt(server: ServerRecord): Promise<SupervisorClient>
  /** What the server's supervisor says may have changed (its status, a sample, the follow itself). */
  moved(name: string): void
}

/**
 * The manager's live view of its servers: it follows every running server's supervisor (status
 * changes go to the status ingest as they happen, console lines on the bus as `servers:console`,
 * resource samples to its listener), replaces a supervisor that dies (the game is adopted) and, at
 * its start, adopts every game still running; it tells its listener when it follows again a game
 * whose console it did not read until then. Processes it did not start are left alone.
 */
export class LiveFollow {
  readonly #bus: BusScope
  readonly #logger: Logger
  readonly #files: (name: string) => RunFiles
  readonly #control: FollowedControl
  readonly #ingest: StatusIngest
  readonly #listener: FollowListener
  readonly #watches = new Map<string, SupervisorClient>()
  readonly #connecting = new Set<string>()
  /**
   * Servers whose supervisor this process has just started: the next watch of each asks for every
   * line that supervisor read (its boot lines came before anyone could follow), not just the new ones.
   */
  readonly #fresh = new Set<string>()
  #active = false

  constructor(
    bus: BusScope,
    logger: Logger,
    files: (name: string) => RunFiles,
    control: FollowedControl,
    ingest: StatusIngest,
    listener: FollowListener,
  ) {
    this.#bus = bus
    this.#logger = logger
    this.#files = files
    this.#control = control
    this.#ingest = ingest
    this.#listener = listener
  }

  /** Whether this process follows its servers (the manager, from its start to its stop). */
  get active(): boolean {
    return this.#active
  }

  /** Whether a live connection to the server's supervisor is followed: it tells every change of its run. */
  watching(name: string): boolean {
    return this.#watches.has(name)
  }

  /** A supervisor of the server is being started by this process: its watch reads it from its first line. */
  spawning(name: string): void {
    if (this.#active) this.#fresh.add(name)
  }

  /** That supervisor did not start (and no other serves instead): nothing to read from its first line. */
  notSpawned(name: string): void {
    this.#fresh.delete(name)
  }

  /**
   * Follows every given server whose run is under way (from now on: `active`), adopting a game
   * that runs without a supervisor; what happened while nobody followed is recorded by the looks.
   */
  async reconcile(servers: readonly ServerRecord[]): Promise<void> {
    this.#active = true
    for (const server of servers) {
      try {
        const now = await this.#control.status(server)
        if (runUnderWay(now)) {
          if (now.supervisorPid === undefined) (await this.#control.adopt(server)).close()
          await this.watch(server)
        }
      } catch (error) {
        this.#logger.warn(`Server '${server.name}' could not be reconciled: ${reasonOf(error)}`)
      }
    }
  }

  /** Follows the server's supervisor, when this process follows its servers and does not already. */
  watch(server: ServerRecord): Promise<void> {
    // The socket's callbacks keep the context they are made in: a watch belongs to no causal
    // chain, whatever started it (a plugin's crash hook restarting the server, a catch-up).
    return runInContext({ chain: undefined }, () => this.#follow(server))
  }

  async #follow(server: ServerRecord): Promise<void> {
    // One watch per server, also when two ask at once (a crash restart found by a look, and the reconcile that looked).
    if (!this.#active || this.#watches.has(server.name) || this.#connecting.has(server.name)) return
    this.#connecting.add(server.name)
    const client = await SupervisorClient.connect(this.#files(server.name), server.name).finally(() =>
      this.#connecting.delete(server.name),
    )
    if (!client) return
    this.#watches.set(server.name, client)
    this.#control.moved(server.name)
    // A supervisor this process started: every line it read, in order, before the ones that follow.
    const fresh = this.#fresh.delete(server.name)
    const emit = (line: string) => void this.#bus.emit('servers:console', { serverName: server.name, line })
    let early: string[] | undefined = fresh ? [] : undefined
    client.onClose(() => {
      if (this.#watches.get(server.name) !== client) return
      this.#watches.delete(server.name)
      this.#control.moved(server.name)
      if (!this.#active) return
      // The run ended, or its supervisor died: record it, and adopt a game that lives on.
      void this.reconcile([server]).catch(() => {})
    })
    try {
      const { tail } = await client.subscribe(
        fresh ? 'run' : 0,
        (line) => (early ? early.push(line) : emit(line)),
        () => {
          this.#control.moved(server.name)
          void this.#ingest.catchUp(server, 'journal')
        },
        (sample) => {
          this.#control.moved(server.name)
          this.#listener.sample?.(server.name, sample)
        },
      )
      for (const line of [...tail, ...(early ?? [])]) emit(line)
      early = undefined
      if (!fresh) this.#listener.resumed?.(server)
      await this.#ingest.catchUp(server, 'journal')
    } catch {
      client.close()
    }
  }

  /** Stops following one server (its supervisor is gone); nothing is recorded for it. */
  unwatch(name: string): void {
    const client = this.#watches.get(name)
    if (!client) return
    this.#watches.delete(name)
    this.#control.moved(name)
    client.close()
  }

  /** Stops following (the manager is stopping); the servers and their supervisors run on. */
  close(): void {
    this.#active = false
    for (const client of this.#watches.values()) client.close()
    this.#watches.clear()
  }
}

/** Whether a run is under way: its game starting, running or stopping, or a supervisor still serving it. */
export function runUnderWay(now: RunStatus): boolean {
  return ACTIVE.includes(now.status) || now.supervisorPid !== undefined
}
