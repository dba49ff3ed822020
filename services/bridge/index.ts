import { mkdirSync, rmSync } from 'node:fs'
import { currentContext, reasonOf, type Service, SmError } from '../../kernel'
import { ownProcess } from '../../lib/process-identity'
import { bridgeCommands, bridgeEvents } from './contract'
import { bridgeErrors } from './errors'
import { BridgeServer } from './server'
import { managerFiles, writeManagerInfo } from './socket-files'

export type * from './contract'
export type { HostOptions } from './contract'
export { natsDeclarations, natsService } from './nats'

/** What the bridge service declares: the `manager:` commands and events and the bridge's codes. */
export const bridgeDeclarations: readonly object[] = [bridgeCommands, bridgeEvents, bridgeErrors]

/**
 * The manager daemon's door: holds the data directory's one manager socket (a second manager
 * is refused, naming this one's PID), writes `manager.json`, and serves the bus over the bridge
 * to CLI processes once the kernel is ready (`kernel:ready`), when it announces `manager:started`.
 * Every service that writes to the data directory starts after it (the events service declares
 * `after: ['bridge']`), so the refusal comes before anything else, plugins included, starts.
 */
export function bridgeService(options: { version: string }): Service {
  let server: BridgeServer | undefined
  let infoFile: string | undefined
  // manager.json goes before the socket closes: once it has, a new manager may start (a client's
  // `web stop` returns then) and write its own, which is not this one's to remove.
  const release = async () => {
    try {
      if (infoFile) rmSync(infoFile, { force: true })
    } finally {
      infoFile = undefined
      await server?.close()
    }
  }

  return {
    name: 'bridge',
    declares: bridgeDeclarations,
    namespace: 'manager',
    async start({ bus, config, logger }) {
      const files = managerFiles(config.dataDir)
      try {
        mkdirSync(config.dataDir, { recursive: true })
      } catch (error) {
        throw new SmError(
          'SM_ERR_DATA_DIR_UNUSABLE',
          { path: config.dataDir, reason: reasonOf(error) },
          { cause: error },
        )
      }
      const bridge = new BridgeServer(bus, logger)
      await bridge.listen(files, config.dataDir)
      server = bridge
      infoFile = files.info
      const startedAt = new Date()
      try {
        writeManagerInfo(files, {
          ...ownProcess(),
          startedAt: startedAt.toISOString(),
          dataDir: config.dataDir,
          version: options.version,
        })
      } catch (error) {
        // This service did not start, so nothing stops it: give back its socket here.
        await bridge.close()
        server = undefined
        throw error
      }
      bus.handle('manager:stop', () => {
        // After the reply is on its way: the stop closes the bridge.
        setImmediate(() => void bus.emit('manager:stop_requested', { by: currentContext().actor }))
        return { pid: process.pid }
      })
      bus.handle('manager:status', async () => {
        const plugins = bus.hasHandler('plugins:list') ? await bus.request('plugins:list', {}) : []
        return {
          pid: process.pid,
          startedAt: startedAt.toISOString(),
          uptimeMs: Date.now() - startedAt.getTime(),
          dataDir: config.dataDir,
          version: options.version,
          clients: bridge.clients,
          plugins: plugins.filter((p) => p.state === 'loaded').map((p) => p.name),
          ...(bus.hasHandler('nats:status') ? { nats: await bus.request('nats:status', {}) } : {}),
        }
      })
      // Every service is up: answer requests, then tell the services and plugins that this process
      // is the long-running manager (they begin following servers, sampling, onManagerStartup).
      bus.on(
        'kernel:ready',
        async () => {
          bridge.open()
          await bus.emit('manager:started', {})
        },
        { timeoutMs: 0 },
      )
      bus.on('kernel:stopping', () => release())
      logger.debug('bridge listening', { socket: files.socket })
    },
    async stop() {
      await release()
      server = undefined
    },
  }
}
