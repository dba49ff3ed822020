import type { BusScope } from '../../kernel'
import { type CallOptions, guardedListener } from './guarded-call'
import { HOOK_ALIASES, hookMethodName, STANDARD_EVENTS } from './hook-catalogue'
import type { PluginBase } from './plugin-base'

type Callable = (...args: unknown[]) => unknown

/**
 * Registers a plugin's hook methods on its bus scope: each `before_*`/`after_*` method for its
 * event (and the `beforeStartServer` alias), then `onAnyEvent` after it for every standard event.
 * Returns the events hooked. Registration order is load order, so dispatch follows it too.
 */
export function bindHooks(instance: PluginBase, scope: BusScope, options: CallOptions): string[] {
  const methods = instance as unknown as Record<string, Callable | undefined>
  const aliases = Object.entries(HOOK_ALIASES)
  const onAny = typeof methods.onAnyEvent === 'function' ? methods.onAnyEvent : undefined
  const hooked: string[] = []
  for (const event of STANDARD_EVENTS) {
    const names = [hookMethodName(event), ...aliases.filter(([, target]) => target === event).map(([alias]) => alias)]
    for (const name of names) {
      const method = methods[name]
      if (typeof method !== 'function') continue
      scope.on(
        event as 'before_server_start',
        guardedListener(event, options, (payload) => method.call(instance, payload)),
        {
          timeoutMs: 0,
          guarded: true,
        },
      )
      hooked.push(event)
    }
    if (onAny) {
      const listener = guardedListener(event, options, (payload) => onAny.call(instance, event, payload))
      scope.on(event as 'before_server_start', listener, { timeoutMs: 0, guarded: true })
    }
  }
  return hooked
}
