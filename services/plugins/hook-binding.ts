import type { BatchMember, BusScope } from '../../kernel'
import { withoutSecrets } from '../../lib/secrets'
import { type CallOptions, guardedListener } from './guarded-call'
import { hookEvents } from './hook-catalogue'
import { hookMethodsOf, methodOf } from './hook-methods'
import type { PluginBase } from './plugin-base'

// One redacted view per payload: every plugin hooked to one emit shares it.
const views = new WeakMap<object, unknown>()

/** What plugins see of a standard event's payload: secret values (a password setting's value) redacted. */
export function pluginView(payload: unknown): unknown {
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
  const onAny = methodOf(instance, 'onAnyEvent')
  return bindHookCalls(
    scope,
    options,
    { methods: hookMethodsOf(instance, scope.catalogue.actions()), any: typeof onAny === 'function' },
    // Each hook's method looked up once, here: the call itself is one direct call.
    (hook) => {
      const method = methodOf(instance, hook.any ? 'onAnyEvent' : hook.method)
      if (!method) throw new TypeError(`the plugin has no method for ${hook.event}`)
      return hook.any ? (payload) => method(hook.event, payload) : (payload) => method(payload)
    },
  )
}

/** One hook call: the event, and the method it runs (or onAnyEvent). */
export type HookCall =
  | { readonly event: string; readonly method: string; readonly any: false }
  | {
      readonly event: string
      readonly any: true
    }

/**
 * Registers hooks on a plugin's bus scope, each running the call `callFor` makes for it wherever the plugin is (here, or in
 * its thread): each of its hook `methods` for its event, then, with `any`, onAnyEvent after them
 * for every standard event. Each gets the payload as plugins see it. Returns the events hooked.
 */
export function bindHookCalls(
  scope: BusScope,
  options: CallOptions,
  wanted: { readonly methods: readonly string[]; readonly any: boolean },
  callFor: (hook: HookCall) => (payload: unknown) => unknown,
  /** The batch a hook's call may go in with its neighbours' (plugins in one thread), if any. */
  batchFor?: (hook: HookCall) => BatchMember,
): string[] {
  const methods = new Set(wanted.methods)
  const hooked = new Set<string>()
  const events = hookEvents(scope.catalogue.actions())
  // An event's last entry (an alias comes after its hook): onAnyEvent goes after all of them.
  const last = new Map(events.map(({ event }, i) => [event, i]))
  const bind = (event: string, hook: HookCall) => {
    const call = callFor(hook)
    const listener = guardedListener(event, options, (payload) => call(pluginView(payload)))
    scope.on(event as 'before_setting_update', listener, { timeoutMs: 0, guarded: true, batch: batchFor?.(hook) })
  }
  for (const [i, { event, method }] of events.entries()) {
    if (methods.has(method)) {
      bind(event, { event, method, any: false })
      hooked.add(event)
    }
    if (wanted.any && last.get(event) === i) bind(event, { event, any: true })
  }
  return [...hooked]
}
