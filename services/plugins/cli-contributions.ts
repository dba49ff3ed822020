import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import type { Command } from '@oclif/core/command'
import { SmError } from '../../kernel/errors'
import { PACKAGE_ROOT } from '../../lib/package-root'
import type { CliContribution, CommandClass } from './contract'

/** Bump when the cache's shape changes: an older file is then rebuilt, never read. */
const FORMAT = 1
const ID_PART = /^[a-z0-9][a-z0-9_-]*$/i

/** `<data dir>/cache/cli.json`: the contributions of the plugins loaded at the last reconcile. */
export interface CliCache {
  readonly format: number
  /** The server-manager version that wrote it (descriptions depend on the SDK). */
  readonly version: string
  readonly plugins: readonly CliContribution[]
}

export function cliCacheFile(dataDir: string): string {
  return join(dataDir, 'cache', 'cli.json')
}

/**
 * The cache as written (its version says whether its descriptions still hold), or undefined when
 * absent, unreadable or of another format.
 */
export function readCliCache(file: string): CliCache | undefined {
  try {
    const cache = JSON.parse(readFileSync(file, 'utf8')) as CliCache
    return cache.format === FORMAT && Array.isArray(cache.plugins) ? cache : undefined
  } catch {
    // No cache yet: no process has loaded the plugins of this data directory.
    return undefined
  }
}

/**
 * Writes the cache atomically (a reader sees the old file or the new one); unchanged content is
 * left alone. A write that fails (a full disk) leaves no temporary file behind.
 */
export function writeCliCache(file: string, version: string, plugins: readonly CliContribution[]): void {
  const text = `${JSON.stringify({ format: FORMAT, version, plugins } satisfies CliCache)}\n`
  if (existsSync(file) && readFileSync(file, 'utf8') === text) return
  mkdirSync(dirname(file), { recursive: true })
  const temporary = `${file}.${process.pid}.tmp`
  try {
    writeFileSync(temporary, text)
    renameSync(temporary, file)
  } catch (error) {
    rmSync(temporary, { force: true })
    throw error
  }
}

/**
 * The command classes a plugin's `getCliCommands()` returned, by id: classes with a `static id`
 * (`greet:hello` or `greet hello`), or topics `{ name, description, commands }` whose commands
 * (and nested topics) take the topic's name as their first id part.
 */
export function commandClasses(
  plugin: string,
  returned: readonly unknown[],
): { classes: Map<string, CommandClass>; topics: { name: string; description?: string }[] } {
  const classes = new Map<string, CommandClass>()
  const topics: { name: string; description?: string }[] = []
  const bad = (reason: string) =>
    new SmError('SM_ERR_CLI_INVALID_CONTRIBUTION', { plugin, method: 'getCliCommands', reason })
  const walk = (items: readonly unknown[], prefix: string[]) => {
    for (const item of items) {
      if (typeof item === 'function') {
        const cls = item as CommandClass
        if (typeof cls.run !== 'function' || typeof cls.prototype?.run !== 'function')
          throw bad(
            `'${cls.name || 'an anonymous function'}' is not a command class (extend Command from 'server-manager/cli')`,
          )
        const own = typeof cls.id === 'string' ? cls.id.trim().split(/[\s:]+/) : []
        if (own.length === 0 || own[0] === '')
          throw bad(`the command class '${cls.name}' has no static id (e.g. static id = 'greet:hello')`)
        const parts = own.slice(0, prefix.length).join(':') === prefix.join(':') ? own : [...prefix, ...own]
        const id = parts.join(':')
        if (!parts.every((part) => ID_PART.test(part)))
          throw bad(`'${id.replaceAll(':', ' ')}' is not a valid command id (letters, digits, - and _ per word)`)
        if (classes.has(id)) throw bad(`two commands have the id '${id.replaceAll(':', ' ')}'`)
        classes.set(id, cls)
      } else if (item && typeof item === 'object' && typeof (item as { name?: unknown }).name === 'string') {
        const topic = item as { name: string; description?: unknown; commands?: unknown }
        const parts = [...prefix, ...topic.name.trim().split(/[\s:]+/)]
        if (!parts.every((part) => ID_PART.test(part))) throw bad(`'${topic.name}' is not a valid topic name`)
        if (!Array.isArray(topic.commands)) throw bad(`the topic '${topic.name}' has no commands array`)
        topics.push({
          name: parts.join(':'),
          ...(typeof topic.description === 'string' ? { description: topic.description } : {}),
        })
        walk(topic.commands, parts)
      } else throw bad('an entry is neither a command class nor a topic { name, description, commands }')
    }
  }
  walk(returned, [])
  return { classes, topics }
}

/** The menu item names of a plugin's `getCliMenuItems()`, checked: `{ name, handler(ctx) }` each. */
export function menuItemNames(plugin: string, returned: readonly unknown[]): string[] {
  const names = returned.map((item) => {
    const { name, handler } = (item ?? {}) as { name?: unknown; handler?: unknown }
    if (typeof name !== 'string' || name.trim() === '' || typeof handler !== 'function')
      throw new SmError('SM_ERR_CLI_INVALID_CONTRIBUTION', {
        plugin,
        method: 'getCliMenuItems',
        reason: 'each item must be { name: string, handler(ctx) }',
      })
    return name
  })
  const twin = names.find((name, i) => names.indexOf(name) !== i)
  if (twin)
    throw new SmError('SM_ERR_CLI_INVALID_CONTRIBUTION', {
      plugin,
      method: 'getCliMenuItems',
      reason: `two items are named '${twin}'`,
    })
  return names
}

/** Describes a plugin's commands as oclif caches them (flags, args, summary, examples), JSON only. */
export async function describeCommands(
  plugin: string,
  classes: ReadonlyMap<string, CommandClass>,
): Promise<Command.Cached[]> {
  // Most plugins add no commands: oclif's code is not loaded for them (a plugin's thread stays small).
  if (classes.size === 0) return []
  // oclif's own manifest code (not exported by the package's exports map, so reached by path).
  const { cacheCommand } = require(join(dirname(require.resolve('@oclif/core')), 'util', 'cache-command.js')) as {
    cacheCommand(cmd: Command.Class, plugin: unknown): Promise<Command.Cached>
  }
  const owner = { name: `plugin:${plugin}`, alias: plugin, type: 'user' }
  const described: Command.Cached[] = []
  for (const [id, cls] of classes) {
    const cached = await cacheCommand(Object.assign(Object.create(cls), { id }) as Command.Class, owner)
    described.push(JSON.parse(JSON.stringify({ ...cached, id, local: cls.local === true })) as Command.Cached)
  }
  return described
}

/** The built-in command ids and topic names (from oclif.manifest.json, else the compiled command files). */
export function builtinCli(packageRoot = PACKAGE_ROOT): {
  commands: Set<string>
  topics: Set<string>
  version: string
} {
  const pjson = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as {
    version: string
    oclif: { topics?: Record<string, unknown> }
  }
  let commands: string[]
  try {
    const manifest = JSON.parse(readFileSync(join(packageRoot, 'oclif.manifest.json'), 'utf8')) as {
      commands: Record<string, unknown>
    }
    commands = Object.keys(manifest.commands)
  } catch {
    commands = scanCommands(join(packageRoot, 'dist', 'services', 'cli', 'commands'), [])
  }
  // The oclif plugins we ship, and the words oclif itself answers to.
  commands.push('autocomplete', 'autocomplete:create', 'autocomplete:script', 'help', 'version')
  const topics = new Set(Object.keys(pjson.oclif.topics ?? {}))
  for (const id of commands) {
    const parts = id.split(':')
    for (let i = 1; i < parts.length; i++) topics.add(parts.slice(0, i).join(':'))
  }
  return { commands: new Set(commands), topics, version: pjson.version }
}

function scanCommands(dir: string, prefix: string[]): string[] {
  if (!existsSync(dir)) return []
  const ids: string[] = []
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) ids.push(...scanCommands(join(dir, entry.name), [...prefix, entry.name]))
    else if (entry.name.endsWith('.js')) {
      const name = entry.name.slice(0, -3)
      ids.push((name === 'index' ? prefix : [...prefix, name]).join(':'))
    }
  }
  return ids
}

/**
 * Refuses a plugin's commands and topics that a built-in command or an earlier plugin has
 * (a topic may hold commands of several plugins; a command id or a topic's description belongs
 * to one). Throws SM_ERR_CLI_COMMAND_CONFLICT naming both.
 */
export function checkCliConflicts(
  plugin: string,
  mine: { commands: readonly { id: string }[]; topics: readonly { name: string; description?: string }[] },
  builtin: { commands: ReadonlySet<string>; topics: ReadonlySet<string> },
  others: readonly CliContribution[],
): void {
  const conflict = (other: string, what: string) => new SmError('SM_ERR_CLI_COMMAND_CONFLICT', { plugin, other, what })
  for (const { id } of mine.commands) {
    const words = id.replaceAll(':', ' ')
    if (builtin.commands.has(id) || builtin.topics.has(id)) throw conflict('core', `the command '${words}'`)
    const parts = id.split(':')
    for (let i = 1; i < parts.length; i++) {
      const above = parts.slice(0, i).join(':')
      if (builtin.commands.has(above)) throw conflict('core', `a command under '${above.replaceAll(':', ' ')}'`)
    }
    for (const other of others) {
      if (other.plugin === plugin) continue
      if (other.commands.some((c) => c.id === id)) throw conflict(other.plugin, `the command '${words}'`)
      if (other.topics.some((t) => t.name === id)) throw conflict(other.plugin, `the command '${words}' (a topic)`)
    }
  }
  for (const topic of mine.topics) {
    if (builtin.commands.has(topic.name) || builtin.topics.has(topic.name))
      throw conflict('core', `the topic '${topic.name.replaceAll(':', ' ')}'`)
    for (const other of others) {
      if (other.plugin === plugin) continue
      if (other.commands.some((c) => c.id === topic.name))
        throw conflict(other.plugin, `the topic '${topic.name.replaceAll(':', ' ')}' (a command)`)
      if (topic.description !== undefined && other.topics.some((t) => t.name === topic.name && t.description))
        throw conflict(other.plugin, `the topic '${topic.name.replaceAll(':', ' ')}'`)
    }
  }
}

/** Describes what a plugin instance contributes to the CLI (its getCliCommands() and getCliMenuItems()). */
export async function contributionOf(
  plugin: Omit<CliContribution, 'commands' | 'topics' | 'menuItems' | 'error'>,
  returned: { commands: readonly unknown[]; menuItems: readonly unknown[] },
): Promise<CliContribution> {
  const { classes, topics } = commandClasses(plugin.plugin, returned.commands)
  return {
    ...plugin,
    commands: await describeCommands(plugin.plugin, classes),
    topics,
    menuItems: menuItemNames(plugin.plugin, returned.menuItems),
  }
}
