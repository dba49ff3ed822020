import { type StdioOptions, spawn } from 'node:child_process'
import { closeSync, existsSync, openSync } from 'node:fs'
import { join } from 'node:path'
import { SmError } from '../../../kernel/errors'
import { Connection, connectOrCode } from '../../../lib/json-lines'
import { sealedStdio, untilNotDying } from '../../../lib/process-identity'
import {
  type AgentAnnouncement,
  type AgentMessage,
  type AgentRequest,
  type Announcement,
  PASSED_ENV,
  type RunStatus,
  type ServerSample,
  type SupervisorMessage,
  type SupervisorRequest,
} from './protocol'
import { AgentFiles, type RunFiles, type StatusEntry } from './run-files'

type Op = SupervisorRequest['op']
/** What a request of `op` carries besides its name. */
export type RequestFields<O extends Op> = Omit<Extract<SupervisorRequest, { op: O }>, 't' | 'id' | 'op'>

/** A connection to one server's supervisor (any process of the data directory's user may open one). */
export class SupervisorClient {
  readonly #connection: Connection<SupervisorMessage, SupervisorRequest>
  readonly #pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>()
  #next = 1
  #onLine: ((line: string) => void) | undefined
  #onStatus: ((entry: StatusEntry) => void) | undefined
  #onSample: ((sample: ServerSample) => void) | undefined
  #onClose: (() => void)[] = []
  readonly #server: string
  /** The supervisor's own log, named in every error about it. */
  readonly #log: string

  private constructor(socket: import('node:net').Socket, server: string, log: string) {
    this.#server = server
    this.#log = log
    this.#connection = new Connection<SupervisorMessage, SupervisorRequest>(
      socket,
      (message) => this.#receive(message),
      () => {
        const lost = this.#lost('it closed the connection before answering (it ends when the game stops for good)')
        for (const { reject } of this.#pending.values()) reject(lost)
        this.#pending.clear()
        for (const listener of this.#onClose) listener()
      },
    )
  }

  /** A client, or undefined when no supervisor answers (none runs, or a stale socket file). */
  static async connect(files: RunFiles, server: string): Promise<SupervisorClient | undefined> {
    // No socket file: no supervisor (the usual case of a stopped server), and nothing to wait for.
    if (!existsSync(files.socket)) return undefined
    // A supervisor killed a moment ago may still accept on its socket, and never answer.
    await untilNotDying(files.readState()?.supervisor)
    const socket = await connectOrCode(files.socket)
    return typeof socket === 'string' ? undefined : new SupervisorClient(socket, server, files.supervisorLog)
  }

  request<O extends Op>(op: O, fields: RequestFields<O>): Promise<unknown> {
    const id = this.#next++
    return new Promise((resolve, reject) => {
      if (this.#connection.closed) return reject(this.#lost('the connection to it is closed'))
      this.#pending.set(id, { resolve, reject })
      this.#connection.send({ t: 'req', id, op, ...fields } as SupervisorRequest)
    })
  }

  status(): Promise<RunStatus> {
    return this.request('status', {}) as Promise<RunStatus>
  }

  /**
   * Follows the console, status changes and resource samples; answers with the status now and the
   * last `tail` lines (`'run'`: every line the supervisor has read, at most its last 200). Lines can arrive before the answer does.
   */
  subscribe(
    tail: number | 'run',
    onLine: (line: string) => void,
    onStatus: (entry: StatusEntry) => void,
    onSample?: (sample: ServerSample) => void,
  ): Promise<RunStatus & { tail: string[] }> {
    this.#onLine = onLine
    this.#onStatus = onStatus
    this.#onSample = onSample
    return this.request('subscribe', { tail }) as Promise<RunStatus & { tail: string[] }>
  }

  onClose(listener: () => void): void {
    if (this.#connection.closed) listener()
    else this.#onClose.push(listener)
  }

  close(): void {
    this.#connection.close()
  }

  /** Whether the connection ended (closed here, or the supervisor went away). */
  get closed(): boolean {
    return this.#connection.closed
  }

  #lost(reason: string): SmError {
    return new SmError('SM_ERR_SERVER_SUPERVISOR_FAILED', { server: this.#server, reason, log: this.#log })
  }

  #receive(message: SupervisorMessage): void {
    if (message.t === 'line') this.#onLine?.(message.line)
    else if (message.t === 'status') this.#onStatus?.(message.entry)
    else if (message.t === 'sample') this.#onSample?.(message.sample)
    else this.#settle(message)
  }

  #settle(message: Extract<SupervisorMessage, { t: 'res' }>): void {
    const pending = this.#pending.get(message.id)
    if (!pending) return
    this.#pending.delete(message.id)
    if (message.ok) pending.resolve(message.value)
    else pending.reject(SmError.fromWire(message.error))
  }
}

/**
 * Has the data directory's host agent supervise a run directory (it adopts the game recorded there
 * if that still runs, else starts it; with `adopt`, it only adopts, and refuses with
 * `SM_ERR_SERVER_NOT_RUNNING` when the game has ended) and resolves with what the run's
 * supervisor says once it serves. Starts the agent, detached, when none runs; it outlives the
 * caller. An agent that was ending just as it was asked is replaced by a new one.
 */
export async function spawnSupervisor(
  files: RunFiles,
  server: string,
  purpose: 'run' | 'adopt' = 'run',
): Promise<Announcement> {
  const agent = AgentFiles.ofRun(files)
  let lost: SmError = new SmError('SM_ERR_SERVER_SUPERVISOR_FAILED', {
    server,
    reason: 'the host agent it started does not answer',
    log: agent.log,
  })
  for (let attempt = 0; attempt < AGENT_ATTEMPTS; attempt++) {
    const client = await reachAgent(agent, server)
    if (client === undefined) continue
    if (!(client instanceof AgentClient)) return client
    try {
      const value = await client.request({ op: 'supervise', dir: files.dir, purpose, env: passedEnv() })
      return value as Announcement
    } catch (error) {
      if (!(error instanceof AgentLost)) return { ok: false, error: (error as SmError).toWire() }
      lost = error.error
    } finally {
      client.close()
    }
  }
  return { ok: false, error: lost.toWire() }
}

/** How many agents a caller tries: each one it reached was ending (idle) as it asked. */
const AGENT_ATTEMPTS = 5

/** The variables a game is passed from its starter's environment (the agent may have been started by another). */
function passedEnv(): Record<string, string> {
  const env: Record<string, string> = {}
  for (const key of PASSED_ENV) if (process.env[key] !== undefined) env[key] = process.env[key] as string
  return env
}

/** The agent's connection closed before it answered: it was ending. */
class AgentLost extends Error {
  constructor(readonly error: SmError) {
    super(error.message)
  }
}

/** One connection to the host agent: requests, answered in order. */
export class AgentClient {
  readonly #connection: Connection<AgentMessage, AgentRequest>
  readonly #pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>()
  readonly #lost: SmError
  #next = 1

  constructor(socket: import('node:net').Socket, lost: SmError) {
    this.#lost = lost
    this.#connection = new Connection<AgentMessage, AgentRequest>(
      socket,
      (message) => {
        const pending = this.#pending.get(message.id)
        if (!pending) return
        this.#pending.delete(message.id)
        if (message.ok) pending.resolve(message.value)
        else pending.reject(SmError.fromWire(message.error))
      },
      () => {
        for (const { reject } of this.#pending.values()) reject(new AgentLost(this.#lost))
        this.#pending.clear()
      },
    )
  }

  /** A client of the data directory's agent, or undefined when none serves. */
  static async connect(agent: AgentFiles, server = 'the host agent'): Promise<AgentClient | undefined> {
    await untilNotDying(agent.readRecord())
    const socket = await connectOrCode(agent.socket)
    if (typeof socket === 'string') return undefined
    const lost = new SmError('SM_ERR_SERVER_SUPERVISOR_FAILED', {
      server,
      reason: 'the host agent closed the connection before answering',
      log: agent.log,
    })
    return new AgentClient(socket, lost)
  }

  request(fields: DistributiveOmit<AgentRequest, 't' | 'id'>): Promise<unknown> {
    const id = this.#next++
    return new Promise((resolve, reject) => {
      if (this.#connection.closed) return reject(new AgentLost(this.#lost))
      this.#pending.set(id, { resolve, reject })
      this.#connection.send({ t: 'req', id, ...fields } as AgentRequest)
    })
  }

  close(): void {
    this.#connection.close()
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never

/**
 * The data directory's agent, started (detached) when none serves; undefined when the one it
 * reached or started went away before it could be asked (the caller tries again).
 */
async function reachAgent(agent: AgentFiles, server: string): Promise<AgentClient | Announcement | undefined> {
  const running = await AgentClient.connect(agent, server)
  if (running) return running
  const announced = await spawnAgent(agent, server)
  if (!announced.ok) return announced
  // It serves (or another one that was started at the same moment does).
  return AgentClient.connect(agent, server)
}

/** Starts a detached agent and resolves with what it announces once it serves. Its output goes to agent.log. */
function spawnAgent(agent: AgentFiles, server: string): Promise<AgentAnnouncement> {
  agent.ensureDir()
  const out = openSync(agent.log, 'a', 0o600)
  const nothing = openSync('/dev/null', 'r+')
  let child: ReturnType<typeof spawn>
  try {
    child = spawn(process.execPath, [join(__dirname, 'agent.js'), agent.dataDir], {
      cwd: agent.dir,
      detached: true,
      // Only what it needs: fds our own starter leaked to us become /dev/null in it.
      stdio: sealedStdio(['ignore', out, out, 'pipe'], nothing) as StdioOptions,
    })
  } finally {
    closeSync(out)
    closeSync(nothing)
  }
  return new Promise((resolve) => {
    const channel = child.stdio[3] as NodeJS.ReadableStream & { destroy(): void }
    let text = ''
    channel.setEncoding('utf8')
    channel.on('data', (chunk: string) => {
      text += chunk
    })
    const done = () => {
      child.unref()
      channel.destroy()
      try {
        resolve(JSON.parse(text.split('\n')[0] ?? '') as AgentAnnouncement)
      } catch {
        resolve({
          ok: false,
          error: new SmError('SM_ERR_SERVER_SUPERVISOR_FAILED', {
            server,
            reason: 'the host agent exited before it could serve',
            log: agent.log,
          }).toWire(),
        })
      }
    }
    channel.once('end', done)
    channel.once('error', done)
    child.once('error', done)
  })
}
