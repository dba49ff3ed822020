import { sep } from 'node:path'
import type { Disposable } from '../../kernel/disposable'
import { errorLine, reasonOf, SmError } from '../../kernel/errors'

/** Told about an error thrown or rejected outside any hook by a plugin's code; returns true when it took it. */
export type StrayHandler = (plugin: string, error: SmError) => boolean

const roots = new Map<string, string>()
const handlers = new Set<StrayHandler>()
const realExit = process.exit.bind(process)
let installed = false

/**
 * Makes `root` (a plugin's file or folder) known, so errors and `process.exit` calls whose
 * stack passes through it are attributed to `plugin`. Kept for the life of the process: a
 * timer of an unloaded plugin still belongs to it.
 */
export function registerPluginRoot(root: string, plugin: string): void {
  roots.set(root, plugin)
}

/** The plugin whose code is on `stack` (innermost frame first), if any. */
export function pluginOnStack(stack: string | undefined): string | undefined {
  if (!stack || roots.size === 0) return undefined
  for (const line of stack.split('\n')) {
    for (const [root, plugin] of roots) {
      const at = line.indexOf(root)
      if (at < 0) continue
      const next = line[at + root.length]
      // `/p/greeter.ts:3:7` or `/p/pkg/index.ts`, never `/p/greeter.tsx`.
      if (next === ':' || next === sep || next === ')' || next === undefined) return plugin
    }
  }
  return undefined
}

/**
 * Contains plugin code at the process level, once per process: an uncaught exception or an
 * unhandled rejection from a plugin is reported to the handlers (the plugin managers) instead
 * of killing the process, and `process.exit` called from plugin code is refused with a coded
 * error. Anything not attributable to a plugin keeps Node's behaviour, with a coded message.
 */
export function containPlugins(handler: StrayHandler): Disposable {
  install()
  handlers.add(handler)
  return { dispose: () => void handlers.delete(handler) }
}

function install(): void {
  if (installed) return
  installed = true
  process.exit = ((code?: number | string | null) => {
    const plugin = pluginOnStack(new Error().stack)
    if (plugin) throw new SmError('SM_ERR_PLUGIN_FORBIDDEN', { plugin, what: 'end the process (process.exit)' })
    return realExit(code)
  }) as typeof process.exit
  process.on('unhandledRejection', (reason) => {
    if (report(reason, 'an unhandled promise rejection')) return
    // Not a plugin's: say so with a code, and carry on (a manager must not die of a stray promise).
    const error = new SmError('SM_ERR_INTERNAL', { reason: `unhandled rejection: ${reasonOf(reason)}` })
    process.stderr.write(`${errorLine(error)}\n${(reason as Error)?.stack ?? ''}\n`)
  })
  process.on('uncaughtException', (error) => {
    if (report(error, 'an uncaught exception')) return
    // Someone else (a test runner, an embedder) handles the rest; alone, behave like Node, with a code.
    if (process.listenerCount('uncaughtException') > 1) return
    const coded = new SmError('SM_ERR_INTERNAL', { reason: reasonOf(error) }, { cause: error })
    process.stderr.write(`${errorLine(coded)}\n${error.stack ?? ''}\n`)
    realExit(coded.exitCode)
  })
}

function report(thrown: unknown, what: string): boolean {
  const plugin = pluginOnStack((thrown as Error | null)?.stack)
  if (!plugin) return false
  const error = new SmError('SM_ERR_PLUGIN_STRAY_ERROR', { plugin, what, reason: reasonOf(thrown) }, { cause: thrown })
  for (const handler of handlers) if (handler(plugin, error)) return true
  process.stderr.write(`${errorLine(error)}\n`)
  return true
}
