import { type Catalogue, createManager, type Kernel, type Service, silentLogger } from '../../manager'
import { tempDir } from './temp-dir'

/** A started manager on a fresh data directory (or the one given), with a silent logger. */
export async function startManager(
  options: { dataDir?: string; services?: Service[]; web?: boolean } = {},
): Promise<Kernel> {
  const manager = createManager({
    dataDir: options.dataDir ?? tempDir(),
    logger: silentLogger,
    services: options.services,
    // Any free port on loopback.
    web: options.web ? { host: '127.0.0.1', port: 0 } : undefined,
  })
  await manager.start()
  return manager
}

/** Runs `fn` against a started manager and always stops it. */
export async function withManager<T>(
  fn: (manager: Kernel) => Promise<T>,
  options: { dataDir?: string; services?: Service[] } = {},
): Promise<T> {
  const manager = await startManager(options)
  try {
    return await fn(manager)
  } finally {
    await manager.stop()
  }
}

/** What a manager of this build declares (every built-in service's commands, events, actions, codes, settings), not started. */
export function managerCatalogue(): Catalogue {
  return createManager({ dataDir: tempDir(), logger: silentLogger }).catalogue
}
