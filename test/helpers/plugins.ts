import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import type { Kernel, PluginRecord } from '../../manager'
import { cliInOk } from './cli-in-process'
import { startManager } from './manager'
import { tempDir } from './temp-dir'

/** Writes plugin files (`name.ts`, or `pkg/index.ts` ...) into a data directory's user plugins folder. */
export function writePlugins(dataDir: string, files: Record<string, string>): void {
  for (const [file, source] of Object.entries(files)) {
    const path = join(dataDir, 'plugins', file)
    mkdirSync(dirname(path), { recursive: true })
    writeFileSync(path, source)
  }
}

/** A minimal valid plugin class body under `name`, with extra members. */
export function plugin(className: string, members = '', statics = "static version = '1.0.0'"): string {
  return `import { PluginBase } from 'server-manager'\n\nexport default class ${className} extends PluginBase {\n  ${statics}\n  ${members}\n}\n`
}

/**
 * Plugin source that writes what the plugin saw (the value of `expression`) to the test's trace:
 * a plugin runs in a thread of its own, so it cannot hand the test a value in memory. Written
 * before the hook returns, so it is there once the action that ran the hook has answered.
 */
export function trace(expression: string): string {
  return `require('node:fs').appendFileSync(process.env.SM_TEST_TRACE as string, JSON.stringify(${expression}) + '\\n')`
}

/** What the plugins of the latest `startWithPlugins` (or `useTrace`) traced, in order. */
export function traced<T = unknown>(): T[] {
  const file = process.env.SM_TEST_TRACE
  if (!file || !existsSync(file)) return []
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as T)
}

/** Points plugins started from now on at a trace file of `dataDir`, empty. */
export function useTrace(dataDir: string): void {
  process.env.SM_TEST_TRACE = join(dataDir, 'trace.jsonl')
  writeFileSync(process.env.SM_TEST_TRACE, '')
}

export interface PluginManagerSetup {
  readonly dataDir: string
  readonly manager: Kernel
}

/**
 * A started manager whose user plugins folder holds `files`, with settings applied before the
 * plugins load (`plugins.dev_examples`, `plugins.hook_timeout_ms`, ...) and `enable` enabled.
 */
export async function startWithPlugins(
  files: Record<string, string>,
  options: { settings?: Record<string, unknown>; enable?: string[]; dataDir?: string } = {},
): Promise<PluginManagerSetup> {
  const dataDir = options.dataDir ?? tempDir()
  writePlugins(dataDir, files)
  useTrace(dataDir)
  const manager = await startManager({ dataDir })
  for (const [key, value] of Object.entries(options.settings ?? {}))
    await manager.bus.request('settings:set', { key, value })
  if (options.settings) await manager.bus.request('plugins:reload', {})
  for (const name of options.enable ?? []) await manager.bus.request('plugins:set_enabled', { name, enabled: true })
  return { dataDir, manager }
}

type WithPluginsFn<T> = (setup: PluginManagerSetup) => Promise<T>

/** Runs `fn` against a manager set up as by `startWithPlugins`, and always stops it. */
export async function withPlugins<T>(files: Record<string, string>, fn: WithPluginsFn<T>): Promise<T>
export async function withPlugins<T>(
  files: Record<string, string>,
  options: Parameters<typeof startWithPlugins>[1],
  fn: WithPluginsFn<T>,
): Promise<T>
export async function withPlugins<T>(
  files: Record<string, string>,
  optionsOrFn: Parameters<typeof startWithPlugins>[1] | WithPluginsFn<T>,
  maybeFn?: WithPluginsFn<T>,
): Promise<T> {
  const [options, fn] =
    typeof optionsOrFn === 'function' ? [{}, optionsOrFn] : [optionsOrFn, maybeFn as WithPluginsFn<T>]
  const setup = await startWithPlugins(files, options)
  try {
    return await fn(setup)
  } finally {
    await setup.manager.stop()
  }
}

/**
 * Every plugin's record, as `plugin list --json` prints it: run in this process (cliIn), since
 * listing loads no plugin (a one-shot list boots a manager without them), whatever the plugins do.
 */
export async function pluginRecords(dataDir: string): Promise<PluginRecord[]> {
  return JSON.parse(await cliInOk(dataDir, ['plugin', 'list', '--json'])) as PluginRecord[]
}

/** One plugin's record (pluginRecords()); throws, listing those there are, when none is of that name. */
export async function pluginRecord(dataDir: string, name: string): Promise<PluginRecord> {
  const all = await pluginRecords(dataDir)
  const record = all.find((r) => r.name === name)
  if (!record) throw new Error(`plugin list has no '${name}': ${all.map((r) => r.name).join(', ') || 'none'}`)
  return record
}
