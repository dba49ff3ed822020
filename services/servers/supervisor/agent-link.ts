import { statfsSync } from 'node:fs'
import { freemem, hostname, loadavg, totalmem } from 'node:os'
import type { NatsConnection } from '@nats-io/transport-node'
import { reasonOf } from '../../../kernel/errors'
import { connectNats, type NatsConfig } from '../../../lib/nats-link'

/** How often an agent says it is there; the manager counts it gone after three beats missed. */
export const HEARTBEAT_MS = 5_000

/** What an agent tells the manager about its host, on every beat. */
export interface HostReport {
  readonly name: string
  readonly hostname: string
  readonly pid: number
  readonly version: string
  readonly node: string
  readonly startedAt: string
  /** 1, 5 and 15 minute load averages. */
  readonly load: readonly number[]
  readonly memory: { readonly total: number; readonly free: number }
  /** The file system of its data directory. */
  readonly disk: { readonly total: number; readonly free: number }
  /** The agent's own resident memory. */
  readonly rss: number
  readonly servers: readonly { readonly server: string; readonly status: string }[]
  readonly at: string
}

/**
 * A host agent on the NATS broker, as host `name`: it uses only its own subjects
 * (`<prefix>.agent.<name>.>`, inbox `_INBOX.agent.<name>`), which is all its credentials allow.
 * It beats on `.hb` with its host's figures and says `.bye` when it stops.
 */
export class AgentLink {
  readonly #connection: NatsConnection
  readonly #subject: string
  readonly #timer: NodeJS.Timeout

  private constructor(
    connection: NatsConnection,
    subject: string,
    report: () => HostReport,
    say: (line: string) => void,
  ) {
    this.#connection = connection
    this.#subject = subject
    void (async () => {
      for await (const status of connection.status()) {
        if (status.type === 'disconnect') say(`lost the broker at ${status.server}; reconnecting`)
        else if (status.type === 'reconnect') say(`reconnected to the broker at ${status.server}`)
      }
    })()
    const beat = () => {
      try {
        connection.publish(`${subject}.hb`, JSON.stringify(report()))
      } catch {
        // Closed meanwhile: the next start joins again.
      }
    }
    beat()
    this.#timer = setInterval(beat, HEARTBEAT_MS)
  }

  static async join(
    config: NatsConfig,
    name: string,
    report: (name: string) => Omit<HostReport, 'name' | 'hostname' | 'load' | 'memory' | 'disk' | 'at'>,
    dataDir: string,
    say: (line: string) => void,
  ): Promise<AgentLink> {
    const connection = await connectNats(config, `server-manager agent ${name} on ${hostname()}`, {
      inboxPrefix: `_INBOX.agent.${name}`,
    })
    return new AgentLink(
      connection,
      `${config.prefix}.agent.${name}`,
      () => ({
        ...report(name),
        name,
        hostname: hostname(),
        load: loadavg(),
        memory: { total: totalmem(), free: freemem() },
        disk: diskOf(dataDir),
        at: new Date().toISOString(),
      }),
      say,
    )
  }

  /** Says goodbye (the manager shows the host offline at once) and leaves the broker. */
  async leave(): Promise<void> {
    clearInterval(this.#timer)
    try {
      this.#connection.publish(`${this.#subject}.bye`, '{}')
      await this.#connection.drain()
    } catch (error) {
      process.stderr.write(`leaving the broker: ${reasonOf(error)}\n`)
    }
  }
}

function diskOf(path: string): { total: number; free: number } {
  try {
    const fs = statfsSync(path)
    return { total: fs.blocks * fs.bsize, free: fs.bavail * fs.bsize }
  } catch {
    return { total: 0, free: 0 }
  }
}
