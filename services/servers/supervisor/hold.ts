import type { HeldRun, RunHandlers } from '../contract'
import { SupervisorClient } from './client'
import { RunFiles } from './run-files'

/**
 * Takes ownership of a running server's run: this process holds its own connection to the run's
 * supervisor, which stops the game when that connection ends, however this process ends (even
 * killed). Undefined when the run has ended already.
 */
export async function holdRun(dataDir: string, server: string, handlers: RunHandlers): Promise<HeldRun | undefined> {
  const client = await SupervisorClient.connect(RunFiles.of(dataDir, server), server)
  if (!client) return undefined
  const ended = new Promise<void>((resolve) => client.onClose(resolve))
  await client.request('own', {})
  const now = await client.subscribe(20, handlers.onLine, handlers.onStatus)
  return { tail: now.tail, ended }
}
