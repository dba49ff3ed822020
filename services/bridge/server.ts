import { chmodSync, rmSync } from 'node:fs'
import { createServer, type Server, type Socket } from 'node:net'
import { type BusScope, type CustomEventName, type Disposable, type Logger, SmError, toSmError } from '../../kernel'
import { Connection, connectOrCode, type Link } from '../../lib/json-lines'
import { answer, BRIDGE_ACTOR } from './answer'
import type { ClientMessage, ServerMessage } from './protocol'
import { isManagerAlive, type ManagerFiles, readManagerInfo, withTakeover } from './socket-files'

/**
 * Serves the manager's bus on a local socket (mode 0600): each request goes to its command's
 * handler as the client's `cli:<user>` actor, each subscription forwards events. The socket is
 * also the manager's lock on its data directory: only one process can listen on it.
 */
export class BridgeServer {
  readonly #scope: BusScope
  readonly #logger: Logger
  readonly #connections = new Set<Link<ServerMessage>>()
  #server: Server | undefined
  #files: ManagerFiles | undefined
  #open: () => void = () => {}
  readonly #ready = new Promise<void>((resolve) => {
    this.#open = resolve
  })

  constructor(scope: BusScope, logger: Logger) {
    this.#scope = scope
    this.#logger = logger
  }

  /** Takes the socket, refusing with SM_ERR_MANAGER_RUNNING when a live manager has it. */
  async listen(files: ManagerFiles, dataDir: string): Promise<void> {
    await withTakeover(files, async () => {
      const server = createServer((socket) => this.#accept(socket))
      const bound = await bind(server, files.socket)
      if (bound === 'EADDRINUSE') {
        const info = readManagerInfo(files)
        const alive = await answers(files.socket)
        if (alive || (info && isManagerAlive(info)))
          throw new SmError('SM_ERR_MANAGER_RUNNING', { dataDir, pid: info ? String(info.pid) : 'unknown' })
        // A socket left by a manager that died: ours now.
        rmSync(files.socket, { force: true })
        const again = await bind(server, files.socket)
        if (again !== undefined) throw new SmError('SM_ERR_DATA_DIR_UNUSABLE', { path: files.socket, reason: again })
      } else if (bound !== undefined) {
        throw new SmError('SM_ERR_DATA_DIR_UNUSABLE', { path: files.socket, reason: bound })
      }
      chmodSync(files.socket, 0o600)
      this.#server = server
      this.#files = files
    })
  }

  /** Starts answering requests (they wait until every service has started). */
  open(): void {
    this.#open()
  }

  get clients(): number {
    return this.#connections.size
  }

  /** Stops listening, ends every connection and removes the socket. */
  async close(): Promise<void> {
    const server = this.#server
    this.#server = undefined
    if (!server) return
    for (const connection of this.#connections) connection.destroy()
    await new Promise<void>((resolve) => server.close(() => resolve()))
    if (this.#files) rmSync(this.#files.socket, { force: true })
  }

  #accept(socket: Socket): void {
    const subscriptions = new Map<number, Disposable>()
    const connection: Link<ServerMessage> = new Connection<ClientMessage, ServerMessage>(
      socket,
      (message) => this.#handle(connection, subscriptions, message),
      (reason) => {
        this.#connections.delete(connection)
        for (const subscription of subscriptions.values()) subscription.dispose()
        if (reason)
          this.#logger.warn(`a bridge client was disconnected: ${reason}`, { code: 'SM_ERR_BRIDGE_BAD_MESSAGE' })
      },
    )
    this.#connections.add(connection)
  }

  #handle(connection: Link<ServerMessage>, subscriptions: Map<number, Disposable>, message: ClientMessage): undefined {
    const id = typeof message.id === 'number' ? message.id : -1
    const refuse = (reason: string): undefined => {
      const error = new SmError('SM_ERR_BRIDGE_BAD_MESSAGE', { reason }).toWire()
      connection.send({ t: 'res', id, ok: false, error })
    }
    switch (message.t) {
      case 'req': {
        if (typeof message.command !== 'string') return refuse('the request names no command')
        if (typeof message.actor !== 'string' || !BRIDGE_ACTOR.test(message.actor))
          return refuse(`the actor '${String(message.actor)}' is not cli:<user> or plugin:<name>`)
        void this.#request(connection, id, message)
        return
      }
      case 'sub': {
        if (typeof message.event !== 'string' || subscriptions.has(id))
          return refuse('a subscription needs a new id and an event')
        const forward = (payload: unknown, meta: { event: string; actor: string; seq: number | undefined }) =>
          connection.send({ t: 'evt', sub: id, payload, meta: { event: meta.event, actor: meta.actor, seq: meta.seq } })
        subscriptions.set(id, this.#scope.on(message.event as CustomEventName, forward))
        return
      }
      case 'unsub':
        subscriptions.get(id)?.dispose()
        subscriptions.delete(id)
        return
      default:
        return refuse(`unknown message type '${String((message as { t?: unknown }).t)}'`)
    }
  }

  async #request(connection: Link<ServerMessage>, id: number, message: ClientMessage & { t: 'req' }) {
    await this.#ready
    const reply = await answer(this.#scope, message.command, message.payload, message.actor)
    try {
      connection.send({ t: 'res', id, ...reply })
    } catch (error) {
      connection.send({ t: 'res', id, ok: false, error: toSmError(error).toWire() })
    }
  }
}

/** Binds `server` to a socket path with mode 0600 from the start; resolves to the error code, if any. */
function bind(server: Server, path: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    const onError = (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message)
    server.once('error', onError)
    const umask = process.umask(0o177)
    try {
      server.listen(path, () => {
        server.off('error', onError)
        resolve(undefined)
      })
    } finally {
      process.umask(umask)
    }
  })
}

/** Whether something accepts connections on the socket. */
async function answers(path: string): Promise<boolean> {
  const socket = await connectOrCode(path)
  if (typeof socket === 'string') return false
  socket.destroy()
  return true
}
