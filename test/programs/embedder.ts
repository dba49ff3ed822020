// Another program embedding server-manager: it creates a manager, registers its own service,
// talks to the built-in settings service through the bus, and stops. It never calls
// process.exit: if anything is left open, the process does not end and the test fails.
import { createManager, type Service, silentLogger } from '../../manager'

declare module '../../kernel/maps' {
  interface CommandMap {
    'greeter:greet': { payload: { name: string }; reply: string }
  }
}

const greeter: Service = {
  name: 'greeter',
  dependsOn: ['settings'],
  start({ bus }) {
    bus.handle('greeter:greet', async ({ name }) => {
      const greeting = await bus.request('settings:get', { key: 'custom.greeting' })
      return `${greeting.found ? greeting.value : 'hello'}, ${name}`
    })
    bus.on('after_setting_update', ({ key }) => {
      process.stdout.write(`greeter saw ${key}\n`)
    })
  },
}

async function main(dataDir: string): Promise<void> {
  // Open stdout first, so its pipe counts as there before the manager.
  process.stdout.write('embedding\n')
  const before = new Set(process.getActiveResourcesInfo())
  const manager = createManager({ dataDir, logger: silentLogger, services: [greeter] })
  await manager.start()
  await manager.bus.request('settings:set', { key: 'custom.greeting', value: 'ahoy' })
  process.stdout.write(`${await manager.bus.request('greeter:greet', { name: 'embedder' })}\n`)
  await manager.stop()
  const left = process.getActiveResourcesInfo().filter((r) => !before.has(r))
  process.stdout.write(`left open: ${JSON.stringify(left)}\n`)
}

void main(process.argv[2] as string)
