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
 * The methods named like a hook (`before…`, `after…`, `on…`) that a plugin's class defines, read
 * from its prototype chain (`cls.prototype`) without constructing it: what discovery records, so
 * that a one-shot command knows which plugins its action needs before it loads any (a hook made an
 * instance field is seen only at load, where hookWarnings warns of it).
 */
export function classHookMethods(prototype: object): string[] {
  const names = new Set<string>()
  for (let proto = prototype; proto && proto !== PluginBase.prototype; proto = Object.getPrototypeOf(proto))
    for (const name of Object.getOwnPropertyNames(proto)) {
      // A getter may answer a function (an autobind decorator's): it counts, unread.
      const property = Object.getOwnPropertyDescriptor(proto, name)
      if (HOOK_LIKE.test(name) && (typeof property?.value === 'function' || property?.get)) names.add(name)
    }
  return [...names].sort()
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

/**
 * What a plugin's author is told when it loads: a method named like a hook that is not one (with
 * the nearest real hook), and a hook that is an instance field (`beforeX = () => …`) rather than
 * a method of the class, which one-shot commands cannot see before loading the plugin.
 */
export function hookWarnings(instance: PluginBase, actions: readonly ActionSummary[]): string[] {
  const unknown = unknownHookMethods(instance, actions).map(({ method, nearest }) => {
    const hint = nearest ? `; did you mean '${nearest}'?` : '; see the hook reference in docs/plugins.md'
    return `'${method}' looks like a hook but is not one, so it is never called${hint}`
  })
  // The hooks a one-shot command decides by (discovery records them from the class): on the instance itself, unseen.
  const fields = [...hookMethodsOf(instance, actions), 'onAnyEvent']
    .filter((name) => Object.hasOwn(instance, name) && typeof Reflect.get(instance, name) === 'function')
    .map(
      (name) =>
        `'${name}' is an instance field, not a method of the class: a command run with no manager does not know the plugin hooks it and may not load the plugin; declare it as a method`,
    )
  return [...unknown, ...fields]
}
