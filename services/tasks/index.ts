import { currentContext, declaredService, reasonOf, type Service, SmError } from '../../kernel'
import { HOSTS, hostTaskId, parseHostTaskId } from '../bridge/contract'
import type { StoredEvent } from '../events/contract'
import { TASKS, type TaskRecord } from './contract'
import { tasksDeclaration } from './declarations'
import { ownerGoneCheck, processName, type StartedFact, unfinished } from './interrupted'
import { TaskManager } from './task-manager'

export type * from './contract'
export { TASKS } from './contract'

/**
 * The task manager: long work (backups, restores, starts, plugin jobs) runs as tasks with an id,
 * state, progress and result, recorded as `tasks:started`/`tasks:finished` facts. `tasks:list`
 * shows this process's tasks, then what the event log recorded of others.
 *
 * A task always ends, also when its process dies: a start with no end whose process is gone
 * (tasks:started records its PID and identity) is recorded as failed with SM_ERR_TASK_INTERRUPTED
 * when a manager starts and whenever tasks are listed; where that cannot be written (a full
 * disk), the list shows it so all the same.
 */
export function tasksService(): Service {
  return {
    ...declaredService(tasksDeclaration),
    async start({ bus, registry, logger, config }) {
      await bus.request('events:declare_facts', { types: ['tasks:started', 'tasks:finished'] })
      const tasks = new TaskManager(
        bus,
        async () => Number((await bus.request('settings:get', { key: 'tasks.max_concurrent' })).value),
        logger,
      )
      registry.provide(TASKS, tasks)

      const recorded = async (limit: number): Promise<TaskRecord[]> => {
        const events = await bus.request('events:read', {
          types: ['tasks:started', 'tasks:finished'],
          limit: limit * 2,
          tail: true,
        })
        return fromFacts(events, ownerGoneCheck(config.dataDir))
      }
      /** Records the end of every task whose process died before it could (see ownerGoneCheck). */
      const endInterrupted = async (): Promise<void> => {
        const events = await bus.request('events:read', {
          types: ['tasks:started', 'tasks:finished'],
          limit: 10_000,
          tail: true,
        })
        const gone = ownerGoneCheck(config.dataDir)
        for (const { fact, time } of unfinished(events)) {
          if (tasks.get(fact.id) || !gone(fact)) continue
          const error = interruption(fact)
          await bus.emit('tasks:finished', {
            id: fact.id,
            name: fact.name,
            state: 'failed',
            error,
            ms: Math.max(0, Date.now() - Date.parse(time)),
          })
          logger.warn(error.message)
        }
      }
      // A manager ends what its dead predecessors (or dead CLI processes) left running.
      if (bus.hasHandler('manager:status'))
        await endInterrupted().catch((error) =>
          logger.warn(`interrupted tasks could not be recorded as ended: ${reasonOf(error)}`),
        )
      bus.handle('tasks:list', async ({ limit }) => {
        const n = Math.max(1, Math.min(Number(limit ?? 50) || 50, 1_000))
        // A read never needs free space: where the ends cannot be written, the list still shows them.
        await endInterrupted().catch((error) =>
          logger.debug(`interrupted tasks could not be recorded as ended: ${reasonOf(error)}`),
        )
        const live = tasks.list(n)
        const seen = new Set(live.map((t) => t.id))
        return [...live, ...(await recorded(n)).filter((t) => !seen.has(t.id))].slice(0, n)
      })
      /** The one task whose id is `given` or starts with it (the 8-character id `tasks` prints, say). */
      const resolve = async (given: unknown): Promise<{ live?: TaskRecord; recorded?: TaskRecord }> => {
        const wanted = String(given ?? '')
          .trim()
          .toLowerCase()
        const live = tasks.get(wanted)
        if (live) return { live }
        const found = new Map<string, { live?: TaskRecord; recorded?: TaskRecord }>()
        for (const id of tasks.ids()) if (wanted && id.startsWith(wanted)) found.set(id, { live: tasks.get(id) })
        for (const task of await recorded(1_000))
          if (wanted && task.id.startsWith(wanted) && !found.has(task.id)) found.set(task.id, { recorded: task })
        const matches = [...found.values()]
        if (matches.length === 1) return matches[0] as { live?: TaskRecord; recorded?: TaskRecord }
        if (matches.length === 0) throw new SmError('SM_ERR_TASK_NOT_FOUND', { id: String(given) })
        const listed = matches.slice(0, 10).map((m) => {
          const t = (m.live ?? m.recorded) as TaskRecord
          return `${t.id} (${t.name}, ${t.state})`
        })
        const more = matches.length > listed.length ? ` and ${matches.length - listed.length} more` : ''
        throw new SmError('SM_ERR_TASK_AMBIGUOUS', { id: String(given), candidates: `${listed.join(', ')}${more}` })
      }
      // A task a host agent runs (`<host>/<id>`, servers:begin routed there): asked of that host.
      const onHost = async (command: 'tasks:get' | 'tasks:cancel', id: string) => {
        const where = parseHostTaskId(id)
        if (!where || !registry.has(HOSTS) || tasks.get(id)) return undefined
        const task = (await registry
          .resolve(HOSTS)
          .request(where.host, command, { id: where.id }, currentContext().actor)) as TaskRecord
        return { ...task, id: hostTaskId(where.host, task.id) }
      }
      bus.handle('tasks:get', async ({ id }) => {
        const there = await onHost('tasks:get', id)
        if (there) return there
        const { live, recorded } = await resolve(id)
        return (live ?? recorded) as TaskRecord
      })
      bus.handle('tasks:cancel', async ({ id }) => {
        const there = await onHost('tasks:cancel', id)
        if (there) return there
        const { live, recorded } = await resolve(id)
        if (live) return (await tasks.cancel(live.id)) as TaskRecord
        // Only in the log: it ran in a process that has ended (or that this one cannot reach).
        const task = recorded as TaskRecord
        throw new SmError('SM_ERR_TASK_FINISHED', { id: task.id, name: task.name, state: task.state })
      })
    },
  }
}

/** The coded cause of an interrupted task. */
function interruption(fact: StartedFact): { code: string; message: string } {
  const error = new SmError('SM_ERR_TASK_INTERRUPTED', { id: fact.id, name: fact.name, pid: processName(fact) })
  return { code: error.code, message: error.message }
}

/**
 * Tasks as the event log tells them, newest first. A start with no end runs in another live
 * process, or was interrupted when its process is gone (`gone`).
 */
function fromFacts(events: readonly StoredEvent[], gone: (fact: StartedFact) => boolean): TaskRecord[] {
  const byId = new Map<string, TaskRecord>()
  /** Started and (so far) not finished. */
  const open = new Map<string, StartedFact>()
  for (const event of events) {
    const p = event.payload as {
      id: string
      name: string
      owner?: string
      server?: string
      state?: TaskRecord['state']
      result?: unknown
      error?: TaskRecord['error']
    }
    const known = byId.get(p.id)
    if (event.type === 'tasks:started') {
      open.set(p.id, p as StartedFact)
      byId.set(p.id, {
        id: p.id,
        name: p.name,
        owner: p.owner ?? event.actor,
        ...(p.server === undefined ? {} : { server: p.server }),
        state: 'running',
        percent: undefined,
        message: undefined,
        result: undefined,
        error: undefined,
        createdAt: event.time,
        finishedAt: undefined,
      })
    } else {
      open.delete(p.id)
      byId.set(p.id, {
        ...(known ?? {
          id: p.id,
          name: p.name,
          owner: event.actor,
          percent: undefined,
          message: undefined,
          createdAt: event.time,
        }),
        state: p.state ?? 'failed',
        // The start's "did not finish" guess is answered by this end.
        message: undefined,
        result: p.result,
        error: p.error,
        percent: p.state === 'succeeded' ? 100 : known?.percent,
        finishedAt: event.time,
      })
    }
  }
  for (const [id, fact] of open) {
    const record = byId.get(id)
    if (record && gone(fact)) byId.set(id, { ...record, state: 'failed', error: interruption(fact) })
  }
  return [...byId.values()].reverse()
}
