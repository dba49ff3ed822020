import * as Errors from '@oclif/core/errors'
import { errorLine, SmError, toSmError } from '../../../kernel/errors'
import { loopLimitMs } from '../../plugins/contract'
import { ACTIVE } from '../../servers/contract'
import { ManagerCommand } from '../manager-command'
import { ask, invoker, menuContext } from '../menu-context'
import { host, menuItems, pluginCommands } from '../plugin-commands'
import { CliSession } from '../session'
import { wiring } from '../wiring'

/** A menu entry: what it says, and what choosing it does. */
interface Action {
  readonly message: string
  readonly run: () => Promise<unknown>
}

const BACK = 'Back'
const CUSTOM = 'Plugin Custom Menus'
const EXIT = 'Exit'

/**
 * The interactive menu (`server-manager` alone on a terminal): the built-in operations, and
 * "Plugin Custom Menus" when enabled plugins supply items. Every choice runs the same command a
 * user would type, sharing one connection to the manager (or one in-process manager). Esc or
 * Ctrl+C in a prompt goes back a level; at the top it leaves.
 */
export default class Menu extends ManagerCommand {
  static override summary = 'Open the interactive menu (also what server-manager alone does on a terminal)'
  static override description =
    'Servers (status, start, stop, restart, console commands, log), backups (create, list, restore, prune), plugins (list, enable, disable, reload), settings, tasks, and the items enabled plugins add under "Plugin Custom Menus". Esc or Ctrl+C goes back; at the top it leaves the menu.'
  static override examples = ['<%= config.bin %>', '<%= config.bin %> menu']

  async run(): Promise<void> {
    await this.parse(Menu)
    if (!process.stdin.isTTY || !process.stdout.isTTY)
      throw new SmError('SM_ERR_CLI_MISSING_ARGUMENT', {
        reason: 'the interactive menu needs a terminal; run a command instead (server-manager --help lists them)',
      })
    await CliSession.sharing(this.session, () => this.#main())
  }

  async #main(): Promise<void> {
    const areas = this.#areas()
    for (;;) {
      const items = pluginCommands().contributions.flatMap((c) =>
        c.menuItems.map((item) => ({ plugin: c.plugin, item })),
      )
      const choices = [...Object.keys(areas), ...(items.length > 0 ? [CUSTOM] : []), EXIT]
      const choice = await select('server-manager: what would you like to do?', choices)
      if (choice === undefined || choice === EXIT) return
      if (choice === CUSTOM) {
        const actions = items.map(({ plugin, item }) => ({
          message: `${item} (plugin: ${plugin})`,
          run: () => this.#runItem(plugin, item),
        }))
        await this.#submenu(CUSTOM, actions)
      } else await this.#submenu(choice, areas[choice] ?? [])
    }
  }

  /** One level of the menu: choose, run, come back, until Back, Esc or Ctrl+C. */
  async #submenu(title: string, actions: readonly Action[]): Promise<void> {
    for (;;) {
      const choice = await select(title, [...actions.map((a) => a.message), BACK])
      const action = actions.find((a) => a.message === choice)
      if (!action) return
      await this.#guard(action.run)
    }
  }

  /** The built-in operations, by area; each runs the command a user would type. */
  #areas(): Record<string, readonly Action[]> {
    const run = invoker(this.config)
    const onServer = (work: (server: string) => Promise<unknown>) => async (): Promise<unknown> => {
      const server = await this.#pickServer()
      return server === undefined ? undefined : work(server)
    }
    const serverCommand = (command: string, ...flags: string[]) =>
      onServer((server) => run(command, [server, ...flags]))
    const askKey = () => ask<string>({ message: 'Setting key (e.g. web.port)', validate: nonEmpty })
    return {
      Servers: [
        { message: 'List servers', run: () => run('server list') },
        { message: 'Status of a server', run: serverCommand('server status') },
        { message: 'Start a server', run: serverCommand('server start') },
        { message: 'Stop a server', run: serverCommand('server stop') },
        { message: 'Restart a server', run: serverCommand('server restart') },
        {
          message: 'Send a console command',
          run: onServer(async (server) => {
            const command = await ask<string>({ message: `Console command for ${server}`, validate: nonEmpty })
            if (command !== undefined) await run('server send', [server, command])
          }),
        },
        { message: 'Show the recent console log', run: serverCommand('server logs', '--lines', '30') },
      ],
      Backups: [
        { message: "Back up a server's world", run: serverCommand('server backup', '--type', 'world') },
        { message: 'Back up world and config', run: serverCommand('server backup', '--type', 'all') },
        { message: "List a server's backups", run: serverCommand('server backups') },
        { message: 'Restore a backup', run: onServer((server) => this.#restore(server)) },
        { message: 'Prune old backups', run: serverCommand('server prune') },
      ],
      Plugins: [
        { message: 'List plugins', run: () => run('plugin list') },
        { message: 'Enable or disable a plugin', run: () => this.#togglePlugin() },
        { message: 'Reload plugins', run: () => run('plugin reload') },
      ],
      Settings: [
        { message: 'List settings', run: () => run('setting list') },
        {
          message: 'Show a setting',
          run: async () => {
            const key = await askKey()
            if (key !== undefined) await run('setting get', [key])
          },
        },
        {
          message: 'Change a setting',
          run: async () => {
            const key = await askKey()
            const value =
              key === undefined ? undefined : await ask<string>({ message: `New value of ${key} (JSON or text)` })
            if (key !== undefined && value !== undefined) await run('setting set', [key, value])
          },
        },
      ],
      Tasks: [
        { message: 'List recent tasks', run: () => run('tasks') },
        { message: 'Cancel a task', run: () => this.#cancelTask() },
      ],
    }
  }

  async #restore(server: string): Promise<void> {
    const backups = await this.request('servers:backups', { name: server })
    if (backups.length === 0) return this.log(`No backups of ${server} yet.`)
    const backup = await pick(
      `Restore which backup into ${server}?`,
      backups,
      (b) => `${b.file} (${b.kind}, ${b.createdAt})`,
    )
    if (backup === undefined) return
    // A running server is stopped for it, as the CLI's --stop does: said before, never done unasked.
    const { status } = await this.request('servers:status', { name: server })
    const running = ACTIVE.includes(status)
    const what = `${backup.kind} with ${backup.file} (what is there now is kept in a safety backup)`
    const sure = await ask<boolean>({
      type: 'confirm',
      message: running
        ? `${server} is ${status}: stop it, replace its ${what}, and start it again?`
        : `Replace ${server}'s ${what}?`,
    })
    if (sure) await invoker(this.config)('server restore', [server, backup.file, ...(running ? ['--stop'] : [])])
  }

  async #togglePlugin(): Promise<void> {
    const plugins = await this.request('plugins:list', {})
    const plugin = await pick(
      'Enable or disable which plugin?',
      plugins,
      (p) => `${p.name} (${p.enabled ? 'enabled' : 'disabled'}, ${p.state})`,
    )
    if (plugin) await invoker(this.config)(plugin.enabled ? 'plugin disable' : 'plugin enable', [plugin.name])
  }

  async #cancelTask(): Promise<void> {
    const tasks = await this.request('tasks:list', { limit: 100 })
    const running = tasks.filter((t) => t.state === 'running' || t.state === 'queued')
    if (running.length === 0) return this.log('No task is running.')
    const task = await pick('Cancel which task?', running, (t) => `${t.name} (${t.state}, ${t.id.slice(0, 8)})`)
    if (task) await invoker(this.config)('tasks cancel', [task.id])
  }

  async #pickServer(): Promise<string | undefined> {
    const servers = await this.request('servers:list', {})
    if (servers.length === 0) {
      this.log('No servers yet: add one with server-manager server add <name> <dir>.')
      return undefined
    }
    return (await pick('Which server?', servers, (s) => `${s.name} (${s.status})`))?.name
  }

  async #runItem(plugin: string, name: string): Promise<void> {
    const failed = (reason: string) => new SmError('SM_ERR_CLI_PLUGIN_COMMAND_ERROR', { plugin, command: name, reason })
    const contribution = pluginCommands().contributions.find((c) => c.plugin === plugin)
    if (!contribution) throw failed('the plugin no longer supplies CLI contributions')
    const hosted = await host(contribution, this.session)
    const item = menuItems(hosted).find((i) => (i as { name?: unknown }).name === name) as
      | { handler(ctx: unknown): unknown }
      | undefined
    if (!item) throw failed('the plugin no longer supplies this item')
    const { value } = await this.request('settings:get', { key: 'plugins.hook_timeout_ms' })
    // No longer than a hook may hold the manager's loop.
    const blockedMs = loopLimitMs(Number(value))
    try {
      // It waits on the user as long as it likes, but its code must not hold the event loop.
      await wiring()
        .plugins()
        .guard(
          () => new SmError('SM_ERR_CLI_PLUGIN_BLOCKED', { plugin, item: name, seconds: Math.round(blockedMs / 1000) }),
          { blockedMs },
          async () =>
            item.handler(menuContext(plugin, hosted.api, this.session, this.config, (line) => this.log(line))),
        )
    } catch (error) {
      if (error instanceof Errors.ExitError || error instanceof SmError) throw error
      throw failed((error as Error)?.message ?? String(error))
    }
  }

  /** Runs one choice; whatever goes wrong is shown, and the menu carries on. */
  async #guard(work: () => Promise<unknown>): Promise<void> {
    try {
      await work()
    } catch (error) {
      // A command that failed has said why already.
      if (error instanceof Errors.ExitError) return
      const coded = toSmError(error)
      this.logToStderr(errorLine(coded))
    }
    this.log('')
  }
}

/** A choice from a list, by its text; undefined when cancelled. */
function select(message: string, choices: readonly string[]): Promise<string | undefined> {
  return ask<string>({ type: 'select', message, choices: [...choices] })
}

/** One of `items`, chosen by the text `label` gives it; undefined when cancelled. */
async function pick<T>(message: string, items: readonly T[], label: (item: T) => string): Promise<T | undefined> {
  const picked = await select(message, items.map(label))
  return items.find((item) => label(item) === picked)
}

function nonEmpty(value: string): boolean | string {
  return value.trim() !== '' || 'Type something, or press Esc to go back.'
}
