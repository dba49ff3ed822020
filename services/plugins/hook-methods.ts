import type { ActionSummary } from '../../kernel'
import { closest } from '../../lib/closest'
import { hookEvents } from './hook-catalogue'
import { PluginBase } from './plugin-base'

/** A method of a plugin's instance, by name (a hook's, a lifecycle one's), bound to it, when it has one. */
export function methodOf(instance: object, name: string): ((...args: unknown[]) => unknown) | undefined {
  const method: unknown = Reflect.get(instance, name)
  return typeof method === 'function' ? method.bind(instance) : undefined
}

/** Calls a plugin's method by name, when it has one (undefined when not). */
export function callMethod(instance: object, name: string, ...args: unknown[]): unknown {
  const method: unknown = Reflect.get(instance, name)
  return typeof method === 'function' ? Reflect.apply(method, instance, args) : undefined
}

/** The hook methods an instance has (`beforeSettingUpdate`, an alias such as `beforeStartServer`). */
export function hookMethodsOf(instance: PluginBase, actions: readonly ActionSummary[]): string[] {
  return [...new Set(hookEvents(actions).map(({ method }) => method))].filter(
    (name) => typeof Reflect.get(instance, name) === 'function',
  )
}

const LIFECYCLE = ['onLoad', 'onUnload', 'onManagerStartup', 'onAnyEvent']
const HOOK_LIKE = /^(before|after|on)[A-Z0-9_]/

/** Every method name the manager calls on a plugin. */
export function knownHookMethods(actions: readonly ActionSummary[]): string[] {
  return [...LIFECYCLE, ...hookEvents(actions).map((hook) => hook.method)]
}

/**
 * Methods named like a hook (`before…`, `after…`, `on…`) that are not one, with the nearest real
 * hook: a typo such as `afterSettingUpdat` would otherwise never run and never say why.
 */
export function unknownHookMethods(
  instance: PluginBase,
  actions: readonly ActionSummary[],
): { method: string; nearest: string | undefined }[] {
  const known = knownHookMethods(actions)
  const names = new Set<string>(Object.keys(instance))
  for (let proto = Object.getPrototypeOf(instance); proto && proto !== PluginBase.prototype; ) {
    for (const name of Object.getOwnPropertyNames(proto)) names.add(name)
    proto = Object.getPrototypeOf(proto)
  }
  return [...names]
    .filter(
      (name) => HOOK_LIKE.test(name) && typeof Reflect.get(instance, name) === 'function' && !known.includes(name),
    )
    .map((method) => ({ method, nearest: closest(method, known) }))
}
