import type { BusScope } from '../../kernel'
import { closest } from '../../lib/closest'
import { withoutSecrets } from '../../lib/secrets'
import { type CallOptions, guardedListener } from './guarded-call'
import { hookEvents } from './hook-catalogue'
import { PluginBase } from './plugin-base'

type Callable = (...args: unknown[]) => unknown

// One redacted view per payload: every plugin hooked to one emit shares it.
const views = new WeakMap<object, unknown>()

/** What plugins see of a standard event's payload: secret values (a password setting's value) redacted. */
function pluginView(payload: unknown): unknown {
  if (payload === null || typeof payload !== 'object') return payload
  let view = views.get(payload)
  if (view === undefined) {
    view = withoutSecrets(payload)
    views.set(payload, view)
  }
  return view
}

/**
 * Registers a plugin's hook methods on its bus scope: each `before_*`/`after_*` method for its
 * event, then `onAnyEvent` after it for every standard event. Returns the events hooked.
 * Registration order is load order, so dispatch follows it too.
 */
export function bindHooks(instance: PluginBase, scope: BusScope, options: CallOptions): string[] {
  const methods = instance as unknown as Record<string, Callable | undefined>
  const onAny = typeof methods.onAnyEvent === 'function' ? methods.onAnyEvent : undefined
  const hooked: string[] = []
  for (const { event, method: name } of hookEvents()) {
    const method = methods[name]
    if (typeof method === 'function') {
      const listener = guardedListener(event, options, (payload) => method.call(instance, pluginView(payload)))
      scope.on(event as 'before_setting_update', listener, { timeoutMs: 0, guarded: true })
      hooked.push(event)
    }
    if (onAny) {
      const listener = guardedListener(event, options, (payload) => onAny.call(instance, event, pluginView(payload)))
      scope.on(event as 'before_setting_update', listener, { timeoutMs: 0, guarded: true })
    }
  }
  return hooked
}

const LIFECYCLE = ['onLoad', 'onUnload', 'onManagerStartup', 'onAnyEvent']
const HOOK_LIKE = /^(before|after|on)[A-Z0-9_]/

/** Every method name the manager calls on a plugin. */
export function knownHookMethods(): string[] {
  return [...LIFECYCLE, ...hookEvents().map((hook) => hook.method)]
}

/**
 * Methods named like a hook (`before…`, `after…`, `on…`) that are not one, with the nearest real
 * hook: a typo such as `afterSettingUpdat` would otherwise never run and never say why.
 */
export function unknownHookMethods(instance: PluginBase): { method: string; nearest: string | undefined }[] {
  const known = knownHookMethods()
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
