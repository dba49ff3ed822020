import { AgentClient } from '../supervisor/client'
import type { AgentStatus } from '../supervisor/protocol'
import { AgentFiles } from '../supervisor/run-files'
import type { VerbTable } from './context'

/** The host agent itself: asked over its socket, never started for the asking. */
export const agentVerbs: VerbTable = {
  'servers:agent': async (ctx) => {
    const files = new AgentFiles(ctx.dataDir)
    const client = await AgentClient.connect(files)
    if (!client) return { running: false, dataDir: ctx.dataDir }
    try {
      const status = (await client.request({ op: 'status' })) as AgentStatus
      return { running: true, dataDir: ctx.dataDir, ...status }
    } finally {
      client.close()
    }
  },
}
