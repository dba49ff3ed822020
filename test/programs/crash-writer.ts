// Appends forever (settings changes and event batches) and prints each sequence number the
// moment its append has returned, so a test can kill -9 it and check what survived.
import { writeSync } from 'node:fs'
import { createManager, silentLogger } from '../../manager'

async function main(dataDir: string): Promise<void> {
  const manager = createManager({ dataDir, logger: silentLogger })
  await manager.start()
  for (let i = 0; ; i++) {
    if (i % 2 === 0) {
      await manager.bus.request('settings:set', { key: `custom.k${i}`, value: i })
      const head = await manager.bus.request('events:head', {})
      writeSync(1, `set custom.k${i} ${head.seq}\n`)
    } else {
      const events = Array.from({ length: 100 }, (_, j) => ({ type: 'crash_test', actor: 'core', payload: { i, j } }))
      const stored = await manager.bus.request('events:append', { events })
      writeSync(1, `append ${stored[0]?.seq} ${stored.at(-1)?.seq}\n`)
    }
  }
}

main(process.argv[2] as string).catch((error: unknown) => {
  writeSync(2, `${(error as Error).stack}\n`)
  process.exit(1)
})
