import { Errors } from '@oclif/core'
import { SmError, toSmError } from '../../../kernel/errors'
import { ManagerCommand } from '../manager-command'
import { ask, invoker, menuContext } from '../menu-context'
import { extension, host, pluginCommands } from '../plugin-commands'
import { CliSession } from '../session'

type Choice = { name: string; message: string }
const BACK: Choice = { name: '__back', message: 'Back' }

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
    for (;;) {
      const items = pluginCommands().contributions.flatMap((c) =>
        c.menuItems.map((item) => ({ plugin: c.plugin, item })),
      )
      const choices: Choice[] = [
        { name: 'servers', message: 'Servers' },
        { name: 'backups', message: 'Backups' },
        { name: 'plugins', message: 'Plugins' },
        { name: 'settings', message: 'Settings' },
        { name: 'tasks', message: 'Tasks' },
        ...(items.length > 0 ? [{ name: 'custom', message: 'Plugin Custom Menus' }] : []),
        { name: 'exit', message: 'Exit' },
      ]
      const choice = await select('server-manager: what would you like to do?', choices)
      if (choice === undefined || choice === 'exit') return
      if (choice === 'custom') await this.#custom(items)
      else await this.#area(choice)
    }
  }

  async #area(area: string): Promise<void> {
    for (;;) {
      const choice = await select(AREAS[area]?.title ?? area, [...(AREAS[area]?.choices ?? []), BACK])
      if (choice === undefined || choice === BACK.name) return
      await this.#guard(() => this.#perform(choice))
    }
  }

  async #perform(action: string): Promise<void> {
    const run = invoker(this.config)
    const [area, verb] = action.split('.') as [string, string]
    if ((area === 'server' || area === 'backup') && action !== 'server.list') {
      const server = await this.#pickServer()
      if (server === undefined) return
      if (verb === 'send') {
        const command = await ask<string>({ message: `Console command for ${server}`, validate: nonEmpty })
        if (command !== undefined) await run('server send', [server, command])
      } else if (verb === 'restore') {
        const backups = await this.request('servers:backups', { name: server })
        if (backups.length === 0) return this.log(`No backups of ${server} yet.`)
        const file = await select(
          `Restore which backup into ${server}?`,
          backups.map((b) => ({ name: b.file, message: `${b.file} (${b.kind}, ${b.createdAt})` })),
        )
        if (file === undefined) return
        const sure = await ask<boolean>({ type: 'confirm', message: `Replace ${server}'s files with ${file}?` })
        if (sure) await run('server restore', [server, file, '--stop'])
      } else await run(COMMANDS[action] ?? action, [server, ...(EXTRA[action] ?? [])])
    } else if (action === 'plugin.toggle') {
      const plugins = await this.request('plugins:list', {})
      const name = await select(
        'Enable or disable which plugin?',
        plugins.map((p) => ({
          name: p.name,
          message: `${p.name} (${p.enabled ? 'enabled' : 'disabled'}, ${p.state})`,
        })),
      )
      const plugin = plugins.find((p) => p.name === name)
      if (plugin) await run(plugin.enabled ? 'plugin disable' : 'plugin enable', [plugin.name])
    } else if (action === 'setting.set') {
      const key = await ask<string>({ message: 'Setting key (e.g. web.port)', validate: nonEmpty })
      if (key === undefined) return
      const value = await ask<string>({ message: `New value of ${key} (JSON or text)` })
      if (value !== undefined) await run('setting set', [key, value])
    } else if (action === 'setting.get') {
      const key = await ask<string>({ message: 'Setting key (e.g. web.port)', validate: nonEmpty })
      if (key !== undefined) await run('setting get', [key])
    } else if (action === 'task.cancel') {
      const running = (await this.request('tasks:list', { limit: 100 })).filter(
        (t) => t.state === 'running' || t.state === 'queued',
      )
      if (running.length === 0) return this.log('No task is running.')
      const id = await select(
        'Cancel which task?',
        running.map((t) => ({ name: t.id, message: `${t.name} (${t.state})` })),
      )
      if (id !== undefined) await run('tasks cancel', [id])
    } else await run(COMMANDS[action] ?? action, EXTRA[action] ?? [])
  }

  async #pickServer(): Promise<string | undefined> {
    const servers = await this.request('servers:list', {})
    if (servers.length === 0) {
      this.log('No servers yet: add one with server-manager server add <name> <dir>.')
      return undefined
    }
    return select(
      'Which server?',
      servers.map((s) => ({ name: s.name, message: `${s.name} (${s.status})` })),
    )
  }

  async #custom(items: { plugin: string; item: string }[]): Promise<void> {
    for (;;) {
      const choices = items.map(({ plugin, item }, i) => ({ name: String(i), message: `${item} (plugin: ${plugin})` }))
      const choice = await select('Plugin Custom Menus', [...choices, BACK])
      if (choice === undefined || choice === BACK.name) return
      const { plugin, item } = items[Number(choice)] as { plugin: string; item: string }
      await this.#guard(() => this.#runItem(plugin, item))
    }
  }

  async #runItem(plugin: string, name: string): Promise<void> {
    const contribution = pluginCommands().contributions.find((c) => c.plugin === plugin)
    if (!contribution) return
    const failed = (reason: string) => new SmError('SM_ERR_CLI_PLUGIN_COMMAND_ERROR', { plugin, command: name, reason })
    const hosted = await host(contribution, this.session)
    const item = extension(hosted, 'getCliMenuItems').find((i) => (i as { name?: unknown }).name === name) as
      | { handler(ctx: unknown): unknown }
      | undefined
    if (!item) throw failed('the plugin no longer supplies this item')
    try {
      await item.handler(menuContext(plugin, hosted.api, this.session, this.config, (line) => this.log(line)))
    } catch (error) {
      if (error instanceof Errors.ExitError || error instanceof SmError) throw error
      throw failed((error as Error)?.message ?? String(error))
    }
  }

  /** Runs one choice; whatever goes wrong is shown, and the menu carries on. */
  async #guard(work: () => Promise<void>): Promise<void> {
    try {
      await work()
    } catch (error) {
      // A command that failed has said why already.
      if (error instanceof Errors.ExitError) return
      const coded = toSmError(error)
      this.logToStderr(`Error [${coded.code}]: ${coded.message}`)
    }
    this.log('')
  }
}

/** A choice from a list; undefined when cancelled. */
async function select(message: string, choices: readonly Choice[]): Promise<string | undefined> {
  // enquirer shows the chosen name once answered: show the text, map it back to the key.
  const picked = await ask<string>({ type: 'select', message, choices: choices.map((c) => ({ name: c.message })) })
  return choices.find((c) => c.message === picked)?.name
}

function nonEmpty(value: string): boolean | string {
  return value.trim() !== '' || 'Type something, or press Esc to go back.'
}

const AREAS: Record<string, { title: string; choices: Choice[] }> = {
  servers: {
    title: 'Servers',
    choices: [
      { name: 'server.list', message: 'List servers' },
      { name: 'server.status', message: 'Status of a server' },
      { name: 'server.start', message: 'Start a server' },
      { name: 'server.stop', message: 'Stop a server' },
      { name: 'server.restart', message: 'Restart a server' },
      { name: 'server.send', message: 'Send a console command' },
      { name: 'server.logs', message: 'Show the recent console log' },
    ],
  },
  backups: {
    title: 'Backups',
    choices: [
      { name: 'backup.world', message: "Back up a server's world" },
      { name: 'backup.all', message: 'Back up world and config' },
      { name: 'backup.list', message: "List a server's backups" },
      { name: 'backup.restore', message: 'Restore a backup' },
      { name: 'backup.prune', message: 'Prune old backups' },
    ],
  },
  plugins: {
    title: 'Plugins',
    choices: [
      { name: 'plugin.list', message: 'List plugins' },
      { name: 'plugin.toggle', message: 'Enable or disable a plugin' },
      { name: 'plugin.reload', message: 'Reload plugins' },
    ],
  },
  settings: {
    title: 'Settings',
    choices: [
      { name: 'setting.list', message: 'List settings' },
      { name: 'setting.get', message: 'Show a setting' },
      { name: 'setting.set', message: 'Change a setting' },
    ],
  },
  tasks: {
    title: 'Tasks',
    choices: [
      { name: 'task.list', message: 'List recent tasks' },
      { name: 'task.cancel', message: 'Cancel a task' },
    ],
  },
}

/** The command each choice runs (with the chosen server first, for server and backup choices). */
const COMMANDS: Record<string, string> = {
  'server.status': 'server status',
  'server.start': 'server start',
  'server.stop': 'server stop',
  'server.restart': 'server restart',
  'server.logs': 'server logs',
  'backup.world': 'server backup',
  'backup.all': 'server backup',
  'backup.list': 'server backups',
  'backup.prune': 'server prune',
  'server.list': 'server list',
  'plugin.list': 'plugin list',
  'plugin.reload': 'plugin reload',
  'setting.list': 'setting list',
  'task.list': 'tasks',
}

const EXTRA: Record<string, string[]> = {
  'backup.world': ['--type', 'world'],
  'backup.all': ['--type', 'all'],
  'server.logs': ['--lines', '30'],
}
