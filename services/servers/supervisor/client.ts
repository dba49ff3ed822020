import { type StdioOptions, spawn } from 'node:child_process'
import { closeSync, openSync } from 'node:fs'
import { join } from 'node:path'
import { SmError } from '../../../kernel/errors'
import { Connection, connectOrCode } from '../../../lib/json-lines'
import { sealedStdio } from '../../../lib/process-identity'
import type { Announcement, RunStatus, ServerSample, SupervisorMessage, SupervisorRequest } from './protocol'
import type { RunFiles, StatusEntry } from './run-files'

type Op = SupervisorRequest['op']
type Fields<O extends Op> = Omit<Extract<SupervisorRequest, { op: O }>, 't' | 'id' | 'op'>

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
    const socket = await connectOrCode(files.socket)
    return typeof socket === 'string' ? undefined : new SupervisorClient(socket, server, files.supervisorLog)
  }

  request<O extends Op>(op: O, fields: Fields<O>): Promise<unknown> {
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
 * Starts a detached supervisor for a run directory (it adopts the game recorded there if that
 * still runs, else starts it; with `adopt`, it only adopts, and refuses with
 * `SM_ERR_SERVER_NOT_RUNNING` when the game has ended) and resolves with what it announces once
 * it serves. It outlives the caller: its own output goes to `supervisor.log`.
 */
export function spawnSupervisor(
  files: RunFiles,
  server: string,
  purpose: 'run' | 'adopt' = 'run',
): Promise<Announcement> {
  const out = openSync(files.supervisorLog, 'a', 0o600)
  const nothing = openSync('/dev/null', 'r+')
  let child: ReturnType<typeof spawn>
  try {
    child = spawn(process.execPath, [join(__dirname, 'main.js'), files.dir, purpose], {
      cwd: files.dir,
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
        resolve(JSON.parse(text.split('\n')[0] ?? '') as Announcement)
      } catch {
        resolve({
          ok: false,
          error: new SmError('SM_ERR_SERVER_SUPERVISOR_FAILED', {
            server,
            reason: 'it exited before it could serve',
            log: files.supervisorLog,
          }).toWire(),
        })
      }
    }
    channel.once('end', done)
    channel.once('error', done)
    child.once('error', done)
  })
}
