// A program that embeds server-manager as the manager of its data directory, with no CLI
// involved: it starts `createManager({ daemon: true })` and serves until asked to stop. The
// kernel, not the `start` command, opens the bridge, so the CLI's commands reach it.
import { createManager, silentLogger } from '../../manager'

async function main(dataDir: string): Promise<void> {
  const manager = createManager({ dataDir, logger: silentLogger, daemon: true, web: false, defaultPlugins: false })
  const asked = new Promise<string>((resolve) =>
    manager.bus.on('manager:stop_requested', ({ by }) => resolve(by), { owner: 'embedder' }),
  )
  await manager.start()
  process.stdout.write(`ready ${process.pid}\n`)
  const by = await asked
  await manager.stop()
  process.stdout.write(`stopped, asked by ${by}\n`)
}

void main(process.argv[2] as string)
