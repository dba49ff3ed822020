import type { BusScope, Logger } from '../../kernel'
import type { PruneResult } from './contract'
import type { EventStore } from './event-store'

export interface RetentionOptions {
  /** Delay before the first pass (ms): one-shot CLI processes end long before it. */
  readonly firstAfterMs?: number
  readonly everyMs?: number
}

/**
 * Prunes the log by the retention settings (`events.retention_days`, `events.max_events`).
 * Without a settings service there are no limits, so nothing is pruned.
 */
export async function applyRetention(store: EventStore, bus: BusScope): Promise<PruneResult> {
  if (!bus.hasHandler('settings:get')) return { deleted: 0, snapshotSeq: undefined }
  const days = await bus.request('settings:get', { key: 'events.retention_days' })
  const max = await bus.request('settings:get', { key: 'events.max_events' })
  return store.prune({ maxAgeDays: days.value as number, maxEvents: max.value as number })
}

/**
 * Applies the retention settings on a timer in long-running processes. The timers are unref'd, so they never keep a process alive. Without
 * a settings service nothing is pruned.
 */
export function scheduleRetention(
  store: EventStore,
  bus: BusScope,
  logger: Logger,
  options: RetentionOptions = {},
): () => void {
  const pass = async () => {
    const result = await applyRetention(store, bus)
    if (!result.deleted) return
    logger.info('pruned the event log', { deleted: result.deleted, snapshotSeq: result.snapshotSeq })
    await bus.emit('events:pruned', result)
  }
  const run = () => void pass().catch((error: unknown) => logger.warn('event-log retention failed', { error }))
  let every: NodeJS.Timeout | undefined
  const first = setTimeout(() => {
    run()
    every = setInterval(run, options.everyMs ?? 6 * 3_600_000)
    every.unref()
  }, options.firstAfterMs ?? 60_000)
  first.unref()
  return () => {
    clearTimeout(first)
    clearInterval(every)
  }
}
