import { type BatchOrder, type BatchOutcome, type EventMeta, type ListenerBatch, SmError } from '../../../kernel'
import { isVeto } from '../../../kernel/veto'
import { type CallOptions, hookFailed, skipped } from '../guarded-call'
import { type HookCall, pluginView } from '../hook-binding'
import { isDisplacement, type PluginHost } from './plugin-host'
import type { BatchAnswer, Call } from './protocol'
import { fromThreadError } from './wire'

/** What a plugin in a thread offers its thread's batch (ThreadedPlugin.batchSide). */
export interface BatchSide {
  /** What its thread knows it by. */
  readonly slot: number
  readonly hookOptions: CallOptions
  /** plugins.hook_timeout_ms, which each hook of a batch has in the thread. */
  readonly timeoutMs: number
  /** Why it ended (its fault, a displacement, 'unloaded'); undefined while it runs. */
  readonly ended: SmError | 'unloaded' | undefined
  /** Says which event's batch its hook is in (what it was doing, for a fault), or none. */
  batching(event: string | undefined): void
  /** A call to its thread, on its own channel. */
  call(call: Call, what: string, timeoutMs?: number): Promise<unknown>
  /** The plugin started again under its name after it was displaced, if one is loaded within the hook timeout. */
  successor(): Promise<{ readonly batchSide: BatchSide } | undefined>
}

/** A plugin's hook as a member of its thread's batch. */
export interface HookMember {
  readonly plugin: { readonly batchSide: BatchSide }
  readonly hook: HookCall
}

/** No timer of the manager's: each hook has the timeout in the thread, and a held thread is its watchdog's. */
const NO_TIMEOUT = 0

/** Each plugin thread's batch. */
const batches = new WeakMap<PluginHost, ListenerBatch>()

/** The batch of the plugins of `host`: neighbouring hooks of a round go over in one crossing. */
export function batchOf(host: PluginHost): ListenerBatch {
  let batch = batches.get(host)
  if (!batch) {
    batch = { run: (members, payload, meta, order) => runBatch(members as readonly HookMember[], payload, meta, order) }
    batches.set(host, batch)
  }
  return batch
}

/**
 * Runs the hooks of `members` (plugins of one thread) in their thread, in `order`, with one call
 * on the first one's channel: each hook under the hook timeout there, as its own code. The
 * manager cuts none off: a hook that holds the thread past the timeout is its watchdog's
 * (plugin-host.ts).
 */
async function runBatch(
  members: readonly HookMember[],
  payload: unknown,
  meta: EventMeta,
  order: BatchOrder,
): Promise<BatchOutcome[]> {
  const sides = members.map(({ plugin }) => plugin.batchSide)
  if (meta.reentrant) return sides.map((side) => ({ ok: true, value: skipped(side.hookOptions, meta) }))
  const first = sides[0] as BatchSide
  const event = meta.event
  for (const side of sides) side.batching(event)
  try {
    const calls = members.map(({ hook }, i) => ({ slot: (sides[i] as BatchSide).slot, hook }))
    const call: Call = { kind: 'batch', calls, payload: pluginView(payload), order, timeoutMs: first.timeoutMs }
    const answers = (await first.call(call, event, NO_TIMEOUT)) as readonly BatchAnswer[]
    return answers.map((answer, i) =>
      answer.ok
        ? answer
        : { ok: false, error: hookFailed((sides[i] as BatchSide).hookOptions, event, fromThreadError(answer.error)) },
    )
  } catch (error) {
    return afterThreadEnded(members, payload, event, order, error)
  } finally {
    for (const side of sides) side.batching(undefined)
  }
}

/**
 * The batch's thread ended under it. When one of its members is the plugin at fault, those
 * before it ran (in their order; had one vetoed, the batch would have ended there), it failed,
 * and those after it never began: each of those is called again on its plugin started anew (a
 * veto among them counts), within the hook timeout, else it fails. Otherwise (the fault was
 * another's, or the thread was ended) none can be told to have run: each fails.
 */
async function afterThreadEnded(
  members: readonly HookMember[],
  payload: unknown,
  event: string,
  order: BatchOrder,
  error: unknown,
): Promise<BatchOutcome[]> {
  const failed = (side: BatchSide, cause: unknown): BatchOutcome => ({
    ok: false,
    error: hookFailed(side.hookOptions, event, cause),
  })
  const sides = members.map(({ plugin }) => plugin.batchSide)
  const ownEnd = (side: BatchSide) => (side.ended instanceof SmError ? side.ended : error)
  const guilty = sides.findIndex((side) => side.ended instanceof SmError && !isDisplacement(side.ended))
  if (guilty < 0) return sides.map((side) => failed(side, ownEnd(side)))
  const outcomes: BatchOutcome[] = sides.slice(0, guilty).map((): BatchOutcome => ({ ok: true, value: undefined }))
  outcomes.push(failed(sides[guilty] as BatchSide, ownEnd(sides[guilty] as BatchSide)))
  for (const [i, side] of sides.entries()) {
    if (i <= guilty) continue
    const next = isDisplacement(side.ended) ? (await side.successor())?.batchSide : undefined
    if (!next) {
      outcomes.push(failed(side, ownEnd(side)))
      continue
    }
    try {
      const hook = (members[i] as HookMember).hook
      const value = await next.call({ kind: 'hook', hook, payload: pluginView(payload) }, event)
      outcomes.push({ ok: true, value })
      if (order === 'until-veto' && isVeto(value)) break
    } catch (cause) {
      outcomes.push(failed(next, cause))
    }
  }
  return outcomes
}
