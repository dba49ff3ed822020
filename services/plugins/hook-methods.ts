import type { ActionEntry } from '../../kernel'
import { closest } from '../../lib/closest'
import { hookEvents } from './hook-catalogue'
import { PluginBase } from './plugin-base'

/** The hook methods an instance has (`beforeSettingUpdate`, an alias such as `beforeStartServer`). */
export function hookMethodsOf(instance: PluginBase, actions: readonly ActionEntry[]): string[] {
  const methods = instance as unknown as Record<string, unknown>
  return [...new Set(hookEvents(actions).map(({ method }) => method))].filter(
    (name) => typeof methods[name] === 'function',
  )
}

const LIFECYCLE = ['onLoad', 'onUnload', 'onManagerStartup', 'onAnyEvent']
const HOOK_LIKE = /^(before|after|on)[A-Z0-9_]/

/** Every method name the manager calls on a plugin. */
export function knownHookMethods(actions: readonly ActionEntry[]): string[] {
  return [...LIFECYCLE, ...hookEvents(actions).map((hook) => hook.method)]
}

/**
 * Methods named like a hook (`before…`, `after…`, `on…`) that are not one, with the nearest real
 * hook: a typo such as `afterSettingUpdat` would otherwise never run and never say why.
 */
export function unknownHookMethods(
  instance: PluginBase,
  actions: readonly ActionEntry[],
): { method: string; nearest: string | undefined }[] {
  const known = knownHookMethods(actions)
  const names = new Set<string>(Object.keys(instance))
  for (let proto = Object.getPrototypeOf(instance); proto && proto !== PluginBase.prototype; ) {
    for (const name of Object.getOwnPropertyNames(proto)) names.add(name)
    proto = Object.getPrototypeOf(proto)
  }
  const methods = instance as unknown as Record<string, unknown>
  return [...names]
    .filter((name) => HOOK_LIKE.test(name) && typeof methods[name] === 'function' && !known.includes(name))
    .map((method) => ({ method, nearest: closest(method, known) }))
}
