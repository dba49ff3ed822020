import type { ActionSummary, BusScope, Disposable } from '../../kernel'
import { isChannel } from './event-names'
import { hookEvents } from './hook-catalogue'
import type { StoredRecord } from './registry-projection'

/**
 * The events that need the enabled plugins loaded first, from what discovery recorded of their
 * classes: each hook's event (every hook event for `onAnyEvent`, or for a plugin recorded before
 * its methods were), and any custom event (listeners are registered in `onLoad`, out of sight).
 * Undefined when no enabled plugin could hear anything.
 */
export function eventsNeedingPlugins(
  records: readonly StoredRecord[],
  actions: readonly ActionSummary[],
): ((event: string) => boolean) | undefined {
  const runnable = records.filter((r) => r.enabled && !r.blocked && r.state !== 'invalid' && r.state !== 'missing')
  if (runnable.length === 0) return undefined
  const hooks = hookEvents(actions)
  const events = new Set<string>()
  for (const { methods } of runnable) {
    const every = methods === undefined || methods.includes('onAnyEvent')
    for (const { event, method } of hooks) if (every || methods.includes(method)) events.add(event)
  }
  return (event) => events.has(event) || isChannel(event)
}

/**
 * A one-shot command's manager loads no plugin at start: the first event one of them would hear
 * (its action's hook, a custom event) loads them all, in their order, before it is dispatched, so
 * a hook sees the action that needed it and whatever its own calls cause. A command whose action
 * no plugin hooks (`setting set` with none hooking settings) runs none. Anything else that loads
 * them (an enable, a reload) ends the wait.
 */
export function loadOnFirstNeed(
  scope: BusScope,
  needs: (event: string) => boolean,
  load: () => Promise<void>,
): Disposable {
  let started = false
  const preparer = scope.setPreparer((event) => {
    // What the plugins' own onLoad emits while they load goes on at once, reaching those loaded
    // so far, as it does when a manager loads them at start: waiting for the load would be a deadlock.
    if (started || !needs(event)) return undefined
    started = true
    return load().finally(() => preparer.dispose())
  })
  return preparer
}
