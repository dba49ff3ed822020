import { rmSync } from 'node:fs'
import type { Socket } from 'node:net'
import type { Disposable } from '../../kernel/disposable'
import { SmError } from '../../kernel/errors'
import { Connection, connectOrCode, type Link } from '../../lib/json-lines'
import type { ClientMessage, EventFrameMeta, ServerMessage } from './protocol'
import { isManagerAlive, type ManagerFiles, managerFiles, readManagerInfo, withTakeover } from './socket-files'

type EventListener = (payload: unknown, meta: EventFrameMeta) => void

/**
 * A process's handle on the running manager's bus: `request` goes to the command's one handler
 * there, `on` receives its events. Loads nothing but the socket code, so a CLI command that only
 * talks to the manager starts fast.
 */
export class BridgeClient {
  readonly #connection: Link<ClientMessage>
  readonly #pending = new Map<number, { command: string; resolve(value: unknown): void; reject(e: Error): void }>()
  readonly #listeners = new Map<number, EventListener>()
  #next = 1
  #onClose: ((reason: string | undefined) => void) | undefined

  private constructor(socket: Socket) {
    this.#connection = new Connection<ServerMessage, ClientMessage>(
      socket,
      (message) => this.#receive(message),
      (reason) => this.#closed(reason),
    )
  }

  /**
   * Connects to the manager running on `dataDir`; undefined when none runs. A socket left by a
   * manager that died (kill -9) is removed on the way.
   */
  static async connect(dataDir: string): Promise<BridgeClient | undefined> {
    const files = managerFiles(dataDir)
    const first = await BridgeClient.#attempt(files.socket)
    if (first instanceof BridgeClient) return first
    if (first === 'ENOENT') return undefined
    if (first !== 'ECONNREFUSED') throw unreachable(files, first)
    const info = readManagerInfo(files)
    if (info && isManagerAlive(info)) throw unreachable(files, `PID ${info.pid} holds it but accepts no connection`)
    return withTakeover(files, async () => {
      const again = await BridgeClient.#attempt(files.socket)
      if (again instanceof BridgeClient) return again
      if (again !== 'ECONNREFUSED' && again !== 'ENOENT') throw unreachable(files, again)
      removeStale(files)
      return undefined
    })
  }

  /** A client, or the error code that stopped the connection. */
  static async #attempt(path: string): Promise<BridgeClient | string> {
    const socket = await connectOrCode(path)
    return typeof socket === 'string' ? socket : new BridgeClient(socket)
  }

  /** Sends a command to its handler in the manager, as `actor`; resolves to the reply or rejects with its SmError. */
  request(command: string, payload: unknown, actor: string): Promise<unknown> {
    const id = this.#next++
    return new Promise((resolve, reject) => {
      if (this.#connection.closed) return reject(new SmError('SM_ERR_BRIDGE_DISCONNECTED', { command }))
      this.#pending.set(id, { command, resolve, reject })
      this.#connection.send({ t: 'req', id, command, payload, actor })
    })
  }

  /** Receives every `event` the manager emits from now on, until disposed or disconnected. */
  on(event: string, listener: EventListener): Disposable {
    const id = this.#next++
    this.#listeners.set(id, listener)
    this.#connection.send({ t: 'sub', id, event })
    return {
      dispose: () => {
        if (!this.#listeners.delete(id)) return
        this.#connection.send({ t: 'unsub', id })
      },
    }
  }

  /** Called once when the manager goes away (or the connection is closed). */
  onClose(callback: (reason: string | undefined) => void): void {
    this.#onClose = callback
  }

  close(): void {
    this.#connection.destroy()
  }

  #receive(message: ServerMessage): void {
    if (message.t === 'evt') return void this.#listeners.get(message.sub)?.(message.payload, message.meta)
    const pending = this.#pending.get(message.id)
    if (!pending) return
    this.#pending.delete(message.id)
    if (message.ok) pending.resolve(message.value)
    else pending.reject(SmError.fromWire(message.error))
  }

  #closed(reason: string | undefined): void {
    for (const { command, reject } of this.#pending.values())
      reject(new SmError('SM_ERR_BRIDGE_DISCONNECTED', { command }))
    this.#pending.clear()
    this.#listeners.clear()
    this.#onClose?.(reason)
  }
}

function removeStale(files: ManagerFiles): void {
  for (const path of [files.socket, files.info]) rmSync(path, { force: true })
}

function unreachable(files: ManagerFiles, reason: string): SmError {
  const why = reason === 'EACCES' ? 'permission denied (the manager runs as another user)' : reason
  return new SmError('SM_ERR_BRIDGE_UNREACHABLE', { path: files.socket, reason: why })
}
