import { PluginBase } from 'server-manager'
import { Command, Flags, type MenuContext } from 'server-manager/cli'

/** `server-manager greet hello --name Steve`: a command with a flag, run like a built-in. */
class Hello extends Command {
  static override id = 'hello'
  static override summary = 'Greet someone by name'
  static override description =
    'Prints a greeting; with --event it also sends greet:said_hello to every listening plugin.'
  static override examples = [
    '<%= config.bin %> greet hello --name Steve',
    '<%= config.bin %> greet hello -n Alex --event',
  ]
  static override flags = {
    name: Flags.string({ char: 'n', required: true, description: 'who to greet' }),
    event: Flags.boolean({ description: 'also send the greet:said_hello event (through the manager)' }),
  }

  async run(): Promise<void> {
    const { flags } = await this.parse(Hello)
    this.log(`Hello, ${flags.name}!`)
    if (flags.event) {
      const report = await this.api.sendEvent('greet:said_hello', { name: flags.name })
      this.log(`greet:said_hello reached ${report.delivered} of ${report.listeners} listeners.`)
    }
  }
}

/** `server-manager greet servers`: reads the manager through this.api (a client of a running manager). */
class Servers extends Command {
  static override id = 'servers'
  static override summary = 'Greet every registered server'
  static override examples = ['<%= config.bin %> greet servers', '<%= config.bin %> greet servers --json']
  static override flags = { json: Flags.boolean({ description: 'print the greetings as JSON' }) }

  async run(): Promise<void> {
    const { flags } = await this.parse(Servers)
    const greetings = (await this.api.listServers()).map((s) => `Hello, ${s.name} (${s.status})!`)
    if (flags.json) return this.printJson(greetings)
    this.log(greetings.length > 0 ? greetings.join('\n') : 'No servers to greet yet.')
  }
}

/**
 * CLI commands and an interactive-menu item: the `greet` topic (`greet hello`, `greet servers`)
 * and "Send Custom Event", which asks for an event name and a JSON payload, confirms, and sends it.
 */
export default class Greet extends PluginBase<Greet> {
  static version = '1.0.0'
  static author = 'server-manager'

  getCliCommands() {
    return [{ name: 'greet', description: 'Greetings from the greet example plugin', commands: [Hello, Servers] }]
  }

  getCliMenuItems() {
    return [{ name: 'Send Custom Event', handler: (ctx: MenuContext) => sendCustomEvent(ctx) }]
  }
}

async function sendCustomEvent(ctx: MenuContext): Promise<void> {
  const event = await ctx.prompt({
    message: 'Event name (<namespace>:<event>)',
    validate: (value) =>
      /^[A-Za-z0-9_.-]+:[A-Za-z0-9_.-]+$/.test(value.trim()) || 'Use <namespace>:<event>, e.g. greet:wave',
  })
  if (event === undefined) return ctx.log('Cancelled.')
  const text = await ctx.prompt({
    message: 'Payload (a JSON object)',
    initial: '{}',
    validate: (value) => isJsonObject(value) || 'Type a JSON object, e.g. {"player": "Steve"}',
  })
  if (text === undefined) return ctx.log('Cancelled.')
  const sure = await ctx.prompt<boolean>({
    type: 'confirm',
    message: `Send ${event.trim()} with ${text}?`,
    initial: true,
  })
  if (!sure) return ctx.log('Not sent.')
  const report = await ctx.obj.bsm.sendEvent(event.trim(), JSON.parse(text))
  ctx.log(`Sent ${report.event}: delivered to ${report.delivered} of ${report.listeners} listeners.`)
}

function isJsonObject(text: string): boolean {
  try {
    const value = JSON.parse(text)
    return value !== null && typeof value === 'object' && !Array.isArray(value)
  } catch {
    return false
  }
}
