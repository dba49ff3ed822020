import { reasonOf, SmError } from '../../kernel/errors'
import { contributionOf } from './cli-contributions'
import type { Candidate } from './discovery'
import type { PluginContributions } from './loaded-plugin'

/** The extension methods a plugin may override (decisions §4.5); each returns an array. */
export type ExtensionMethod =
  | 'getRouters'
  | 'getTemplatePaths'
  | 'getStaticMounts'
  | 'getCliCommands'
  | 'getCliMenuItems'

/**
 * What a plugin's extension method returns: `[]` when it has none; a throw or a value that is
 * not an array fails with SM_ERR_PLUGIN_LOAD_FAILED naming the plugin and the method. `call`
 * runs the method (the manager runs it as the plugin, under the loop watchdog).
 */
export function extensionOf(
  instance: object,
  plugin: string,
  method: ExtensionMethod,
  call: (fn: () => unknown) => unknown = (fn) => fn(),
): unknown[] {
  const fn = (instance as Record<string, unknown>)[method]
  if (typeof fn !== 'function') return []
  let value: unknown
  try {
    value = call(() => fn.call(instance))
  } catch (error) {
    throw new SmError('SM_ERR_PLUGIN_LOAD_FAILED', { plugin, phase: method, reason: reasonOf(error) }, { cause: error })
  }
  if (value === undefined || value === null) return []
  if (!Array.isArray(value))
    throw new SmError('SM_ERR_PLUGIN_LOAD_FAILED', { plugin, phase: method, reason: 'it did not return an array' })
  return value
}

/**
 * What a plugin instance contributes, from its extension methods (`extension` runs one, as the
 * caller runs plugin code): its CLI commands and menu items described, its routers as returned.
 */
export async function contributionsOf(
  plugin: string,
  candidate: Candidate,
  extension: (method: ExtensionMethod) => unknown[],
): Promise<PluginContributions> {
  const { root, entry, hash } = candidate
  const { commands, topics, menuItems } = await contributionOf(
    { plugin, root, entry, hash, version: '' },
    { commands: extension('getCliCommands'), menuItems: extension('getCliMenuItems') },
  )
  return {
    cli: { commands, topics, menuItems },
    web: {
      routers: extension('getRouters'),
      templatePaths: extension('getTemplatePaths'),
      staticMounts: extension('getStaticMounts'),
    },
  }
}
