import { rmSync } from 'node:fs'
import type { Server, Socket } from 'node:net'
import { isSmError, reasonOf, SmError } from '../../../kernel/errors'
import { Connection } from '../../../lib/json-lines'
import type { Conn } from './game-console'
import type { SupervisorMessage, SupervisorRequest } from './protocol'
import type { RunFiles } from './run-files'
import { claimSocket } from './socket-claim'

/** What the socket's requests and connections are handed to. */
export interface SocketHandler {
  /** A request's answer (its value, or a thrown error answered as a coded one). */
  readonly perform: (connection: Conn, request: SupervisorRequest) => Promise<unknown>
  readonly closed: (connection: Conn) => void
}

/**
 * A run's 0600 UNIX socket: claimed for this supervisor alone (socket-claim.ts), each connection
 * a JSON-lines channel whose requests are answered, a failure as a coded error.
 */
export class SupervisorSocket {
  readonly #files: RunFiles
  readonly #server: string
  readonly #handler: SocketHandler
  #listening: Server | undefined

  constructor(files: RunFiles, server: string, handler: SocketHandler) {
    this.#files = files
    this.#server = server
    this.#handler = handler
  }

  /** Binds the socket; refused with SM_ERR_SERVER_SUPERVISED while another supervisor serves the run. */
  async listen(): Promise<void> {
    this.#listening = await claimSocket(
      this.#files.socket,
      this.#files.listenLock,
      (socket) => this.#accept(socket),
      () => this.#supervised(),
      () => this.#files.readState()?.supervisor,
    )
  }

  /** Closes the socket and removes its file. */
  close(): void {
    this.#listening?.close()
    rmSync(this.#files.socket, { force: true })
  }

  #supervised(): SmError {
    const other = this.#files.readState()?.supervisor
    return new SmError('SM_ERR_SERVER_SUPERVISED', { server: this.#server, pid: String(other?.pid ?? 'unknown') })
  }

  #accept(socket: Socket): void {
    const connection: Conn = new Connection<SupervisorRequest, SupervisorMessage>(
      socket,
      (request) => void this.#answer(connection, request),
      () => this.#handler.closed(connection),
    )
  }

  async #answer(connection: Conn, request: SupervisorRequest): Promise<void> {
    if (request?.t !== 'req') return connection.close('not a request')
    try {
      const value = await this.#handler.perform(connection, request)
      connection.send({ t: 'res', id: request.id, ok: true, value })
    } catch (error) {
      const coded = isSmError(error)
        ? error
        : new SmError('SM_ERR_SERVER_SUPERVISOR_FAILED', {
            server: this.#server,
            reason: reasonOf(error),
            log: this.#files.supervisorLog,
          })
      connection.send({ t: 'res', id: request.id, ok: false, error: coded.toWire() })
    }
  }
}
