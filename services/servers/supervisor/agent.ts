/**
 * The host agent: the one process that supervises every game server of a data directory (a
 * `Supervisor` per running game, run-supervisor.ts), instead of a process per game. It serves
 * `<data dir>/agent/agent.sock` (0600): `supervise` a run directory, or its `status`. When it
 * starts it adopts every game recorded as running whose supervision ended (an agent killed with
 * -9, a reboot of the agent alone), by process identity; games outlive it, since their console
 * and log are files, not its pipes.
 *
 * Started on demand by whoever needs a game supervised (spawnSupervisor), it ends once it
 * supervises nothing and nobody is talking to it; with `--stay` (a systemd unit) it stays.
 *
 * Usage: node agent.js <data dir> [--stay]. It reports once on fd 3 (when given) whether it serves.
 */
import { closeSync, existsSync, readdirSync, readFileSync, rmSync, writeSync } from 'node:fs'
import type { Server, Socket } from 'node:net'
import { join, resolve } from 'node:path'
import { knowErrors } from '../../../kernel/error-catalogue'
import { isSmError, reasonOf, SmError } from '../../../kernel/errors'
import { Connection } from '../../../lib/json-lines'
import { PACKAGE_ROOT } from '../../../lib/package-root'
import { gameAlive } from '../../../lib/process-group'
import { isSameProcess, ownProcess } from '../../../lib/process-identity'
import { serversErrors } from '../errors'
import {
  type AgentAnnouncement,
  type AgentMessage,
  type AgentRequest,
  type AgentStatus,
  type Announcement,
  PASSED_ENV,
} from './protocol'
import { AgentFiles, RunFiles } from './run-files'
import { Supervisor } from './run-supervisor'
import { claimSocket } from './socket-claim'

/** How long an agent nobody has asked anything waits before it ends (its starter died before asking). */
const UNASKED_MS = 10_000
/** How long an ending agent lets its last replies go out. */
const LAST_WORDS_MS = 2_000

type Conn = Connection<AgentRequest, AgentMessage>

const VERSION: string = (() => {
  try {
    return JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')).version
  } catch {
    return 'unknown'
  }
})()

class Agent {
  readonly #files: AgentFiles
  readonly #stay: boolean
  readonly #startedAt = new Date().toISOString()
  /** The supervisor of each run directory it supervises, from the moment it is asked. */
  readonly #runs = new Map<string, Supervisor>()
  readonly #connections = new Set<Conn>()
  #server: Server | undefined
  #unasked: NodeJS.Timeout | undefined
  #ending = false

  constructor(files: AgentFiles, stay: boolean) {
    this.#files = files
    this.#stay = stay
  }

  async listen(): Promise<void> {
    this.#files.ensureDir()
    this.#server = await claimSocket(
      this.#files.socket,
      this.#files.listenLock,
      (socket) => this.#accept(socket),
      () => new SmError('SM_ERR_SERVER_AGENT_RUNNING', { dir: this.#files.dataDir }),
      () => this.#files.readRecord(),
    )
    this.#files.writeRecord({ ...ownProcess(), startedAt: this.#startedAt, version: VERSION })
    if (!this.#stay) this.#unasked = setTimeout(() => this.#endIfIdle(), UNASKED_MS)
  }

  /**
   * Adopts every game recorded as running that nobody supervises any more. A game that has died
   * meanwhile is left to whoever looks next (the status ingest records its end and applies the
   * crash policy, once).
   */
  async adoptAll(): Promise<void> {
    const servers = this.#files.servers
    if (!existsSync(servers)) return
    const env = starterEnv(process.env)
    await Promise.all(
      readdirSync(servers).map(async (name) => {
        const dir = join(servers, name)
        const state = new RunFiles(dir).readState()
        const { game, supervisor } = state ?? {}
        if (!game || !gameAlive(game.pid, game.identity)) return
        if (supervisor && supervisor.pid !== process.pid && isSameProcess(supervisor.pid, supervisor.identity)) return
        try {
          await this.supervise(dir, 'adopt', env)
          log(`adopted '${name}' (PID ${game.pid})`)
        } catch (error) {
          if (!(isSmError(error) && error.code === 'SM_ERR_SERVER_SUPERVISED'))
            log(`could not adopt '${name}': ${reasonOf(error)}`)
        }
      }),
    )
  }

  /** Supervises a run directory of its data directory: adopts its game, or starts it. */
  async supervise(dir: string, purpose: 'run' | 'adopt', env: Readonly<Record<string, string>>): Promise<Announcement> {
    const files = new RunFiles(resolve(dir))
    const name = files.dir.slice(this.#files.servers.length + 1)
    if (!files.dir.startsWith(`${this.#files.servers}/`) || name.includes('/') || name === '')
      throw new SmError('SM_ERR_SERVER_SUPERVISOR_FAILED', {
        server: dir,
        reason: `it is not a run directory of ${this.#files.servers}`,
        log: this.#files.log,
      })
    if (this.#runs.has(files.dir))
      throw new SmError('SM_ERR_SERVER_SUPERVISED', { server: name, pid: String(process.pid) })
    const spec = files.readSpec()
    if (!spec)
      throw new SmError('SM_ERR_SERVER_SUPERVISOR_FAILED', {
        server: name,
        reason: `${files.spec} is missing or not JSON`,
        log: files.supervisorLog,
      })
    const supervisor = new Supervisor(files, spec, {
      env,
      onEnd: () => {
        if (this.#runs.get(files.dir) === supervisor) this.#runs.delete(files.dir)
        this.#endIfIdle()
      },
    })
    this.#runs.set(files.dir, supervisor)
    try {
      return await supervisor.run(purpose)
    } catch (error) {
      if (this.#runs.get(files.dir) === supervisor) this.#runs.delete(files.dir)
      throw error
    }
  }

  status(): AgentStatus {
    return {
      pid: process.pid,
      startedAt: this.#startedAt,
      node: process.version,
      version: VERSION,
      rss: process.memoryUsage.rss(),
      runs: [...this.#runs.entries()].map(([dir, supervisor]) => ({
        server: dir.slice(this.#files.servers.length + 1),
        status: supervisor.status,
      })),
    }
  }

  #accept(socket: Socket): void {
    clearTimeout(this.#unasked)
    const connection: Conn = new Connection<AgentRequest, AgentMessage>(
      socket,
      (request) => void this.#answer(connection, request),
      () => {
        this.#connections.delete(connection)
        this.#endIfIdle()
      },
    )
    this.#connections.add(connection)
  }

  async #answer(connection: Conn, request: AgentRequest): Promise<void> {
    if (request?.t !== 'req') return connection.close('not a request')
    try {
      const value = await this.#perform(request)
      connection.send({ t: 'res', id: request.id, ok: true, value })
    } catch (error) {
      const coded = isSmError(error)
        ? error
        : new SmError('SM_ERR_SERVER_SUPERVISOR_FAILED', {
            server: request.op === 'supervise' ? String(request.dir) : 'the host agent',
            reason: reasonOf(error),
            log: this.#files.log,
          })
      connection.send({ t: 'res', id: request.id, ok: false, error: coded.toWire() })
    }
  }

  #perform(request: AgentRequest): Promise<unknown> | AgentStatus {
    switch (request.op) {
      case 'supervise': {
        const purpose = request.purpose === 'adopt' ? 'adopt' : 'run'
        return this.supervise(String(request.dir), purpose, starterEnv(request.env ?? {}))
      }
      case 'status':
        return this.status()
      default:
        throw new SmError('SM_ERR_SERVER_SUPERVISOR_FAILED', {
          server: 'the host agent',
          reason: `unknown request '${String((request as { op: unknown }).op)}'`,
          log: this.#files.log,
        })
    }
  }

  /** Ends the agent once it supervises nothing and nobody talks to it (unless it was told to stay). */
  #endIfIdle(): void {
    if (this.#stay || this.#ending || this.#runs.size > 0 || this.#connections.size > 0) return
    this.#ending = true
    clearTimeout(this.#unasked)
    // No new connection from here: the next starter finds no agent and starts a new one.
    this.#server?.close()
    rmSync(this.#files.socket, { force: true })
    this.#files.writeRecord(undefined)
    setTimeout(() => process.exit(0), LAST_WORDS_MS).unref()
  }
}

/** The variables a game is passed, from a starter's environment (strings only: it came over a socket). */
function starterEnv(env: Readonly<Record<string, unknown>>): Record<string, string> {
  const passed: Record<string, string> = {}
  for (const key of PASSED_ENV) if (typeof env[key] === 'string') passed[key] = env[key] as string
  return passed
}

/** A line in agent.log (its stderr). */
function log(message: string): void {
  try {
    // Written directly: a stream's write error (ENOSPC on a full disk) would be an uncaught 'error'.
    writeSync(2, `${new Date().toISOString()} ${message}\n`)
  } catch {
    // agent.log cannot be written (a full disk): the line is lost, the agent carries on.
  }
}

function announce(message: AgentAnnouncement): void {
  try {
    writeSync(3, `${JSON.stringify(message)}\n`)
    closeSync(3)
  } catch {
    // Started by hand, or the starter is gone: nobody to tell.
  }
}

const USAGE = 'usage: agent.js <data dir> [--stay]\n'

async function main(): Promise<void> {
  // The servers' codes its supervisors raise, in a process with no kernel.
  knowErrors(serversErrors)
  // The run directories' files are their user's alone, whoever started the agent (PRIVATE_UMASK).
  process.umask(0o077)
  const [dataDir, ...flags] = process.argv.slice(2)
  if (!dataDir || dataDir.startsWith('-') || flags.some((flag) => flag !== '--stay')) {
    process.stderr.write(USAGE)
    process.exit(64)
  }
  const stay = flags.includes('--stay')
  const files = new AgentFiles(resolve(dataDir))
  // Not ours to end: a terminal hang-up or a stray Ctrl+C leaves the games and their agent be;
  // one run in the foreground to stay (agent start, a systemd unit) ends on Ctrl+C.
  process.on('SIGHUP', () => {})
  process.on('SIGINT', () => (stay ? process.exit(0) : undefined))
  process.on('SIGTERM', () => process.exit(0)) // the games live on and the next agent adopts them
  const agent = new Agent(files, stay)
  try {
    await agent.listen()
  } catch (error) {
    // Another agent serves this data directory: the starter talks to it.
    if (isSmError(error) && error.code === 'SM_ERR_SERVER_AGENT_RUNNING' && !stay) {
      announce({ ok: true })
      process.exit(0)
    }
    const coded = isSmError(error)
      ? error
      : new SmError('SM_ERR_SERVER_SUPERVISOR_FAILED', {
          server: 'the host agent',
          reason: reasonOf(error),
          log: files.log,
        })
    log(`${coded.code}: ${coded.message}`)
    announce({ ok: false, error: coded.toWire() })
    process.exit(1)
  }
  log(`serves (PID ${process.pid})`)
  announce({ ok: true })
  await agent.adoptAll()
}

void main()
