import { AsyncLocalStorage } from 'node:async_hooks'
import { type ActionSummary, type BusScope, type Disposable, runInContext } from '../../kernel'
import { isChannel } from './event-names'
import { hookEvents } from './hook-catalogue'
import { mayLoad, type StoredRecord } from './registry-projection'

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
  const runnable = records.filter(mayLoad)
  if (runnable.length === 0) return undefined
  const hooks = hookEvents(actions)
  const events = new Set<string>()
  for (const { methods } of runnable) {
    const every = methods === undefined || methods.includes('onAnyEvent')
    for (const { event, method } of hooks) if (every || methods.includes(method)) events.add(event)
  }
  return (event) => events.has(event) || isChannel(event)
}

/** A one-shot command's wait for its plugins' first need. */
export interface PluginsOnDemand extends Disposable {
  /** Loads them now, unless they are loaded or loading already (an enable: its hooks must see it). */
  now(): Promise<void>
}

/**
 * A one-shot command's manager loads no plugin at start: the first event one of them would hear
 * (its action's hook, a custom event) loads them all, in their order, before it is dispatched, so
 * a hook sees the action that needed it and whatever its own calls cause. A command whose action
 * no plugin hooks (`setting set` with none hooking settings) runs none.
 *
 * Another such event while they load (two actions at once) waits for the load too. What the load
 * itself causes (the plugins' onLoad and their calls, its facts) goes on at once, to the plugins
 * loaded so far, as at a manager's start: waiting for the load from inside it would be a
 * deadlock. So does what the plugin manager emits while busy with an enable or a reload, which
 * load the plugins themselves. The load runs as the core, as at a manager's start, whatever
 * command needed it.
 */
export function loadOnFirstNeed(
  scope: BusScope,
  needs: (event: string) => boolean,
  load: () => Promise<void>,
  busy: () => boolean,
): PluginsOnDemand {
  const inside = new AsyncLocalStorage<true>()
  let loading: Promise<void> | undefined
  const start = () => {
    loading ??= inside
      .run(true, () => runInContext({ actor: 'core', chain: undefined }, load))
      .finally(() => preparer.dispose())
    return loading
  }
  const preparer = scope.setPreparer((event) => {
    if (inside.getStore() || !needs(event)) return undefined
    if (loading) return loading
    return busy() ? undefined : start()
  })
  return { dispose: () => preparer.dispose(), now: start }
}
