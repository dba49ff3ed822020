import { SmError } from '../../kernel'
import type { PluginStatics } from './plugin-module'

export interface LoadPlan {
  /** The plugins to load, each after everything it requires. */
  readonly order: PluginStatics[]
  /** Plugins that cannot load because of their `requires`, with why. */
  readonly refused: Map<string, SmError>
}

/**
 * Orders enabled plugins by `requires`. A plugin whose requirement is not among the loadable
 * ones (missing, disabled, invalid, or itself refused) is refused, and so is every member of a
 * requires cycle. The others load the user's own first, then the shipped ones (each group in the
 * order given): hooks run in load order and a veto ends the round, so the user's plugins decide
 * before the shipped ones act on what goes ahead (a stop a user's plugin vetoes warns no
 * player). A plugin still loads after what it requires.
 */
export function planLoad(enabled: readonly PluginStatics[]): LoadPlan {
  const byName = new Map(enabled.map((d) => [d.candidate.name, d]))
  const refused = new Map<string, SmError>()
  const order: PluginStatics[] = []
  const state = new Map<string, 'visiting' | 'done'>()

  const visit = (definition: PluginStatics, path: string[]): boolean => {
    const name = definition.candidate.name
    if (refused.has(name)) return false
    if (state.get(name) === 'done') return true
    if (state.get(name) === 'visiting') {
      const members = [...path.slice(path.indexOf(name)), name]
      for (const member of new Set(members)) {
        refused.set(member, new SmError('SM_ERR_PLUGIN_REQUIRES_CYCLE', { plugin: member, cycle: members.join(' → ') }))
      }
      return false
    }
    state.set(name, 'visiting')
    for (const required of definition.requires) {
      const target = byName.get(required)
      if (!target || !visit(target, [...path, name])) {
        if (!refused.has(name))
          refused.set(name, new SmError('SM_ERR_PLUGIN_REQUIRES_MISSING', { plugin: name, missing: `'${required}'` }))
        state.set(name, 'done')
        return false
      }
    }
    state.set(name, 'done')
    if (refused.has(name)) return false
    order.push(definition)
    return true
  }

  const own = enabled.filter((d) => d.candidate.source === 'user')
  for (const definition of [...own, ...enabled.filter((d) => d.candidate.source !== 'user')]) visit(definition, [])
  return { order, refused }
}
