// Sets `<prefix>0` … `<prefix>{n-1}` under custom.* as fast as it can, one change per
// request, to race another process doing the same with another prefix.
import { createManager, silentLogger } from '../../manager'

async function main(dataDir: string, prefix: string, count: number): Promise<void> {
  const manager = createManager({ dataDir, logger: silentLogger })
  await manager.start()
  try {
    for (let i = 0; i < count; i++) await manager.bus.request('settings:set', { key: `custom.${prefix}${i}`, value: i })
  } finally {
    await manager.stop()
  }
}

main(process.argv[2] as string, process.argv[3] as string, Number(process.argv[4])).catch((error: unknown) => {
  process.stderr.write(`${(error as { code?: string }).code ?? ''} ${(error as Error).stack}\n`)
  process.exit(1)
})
