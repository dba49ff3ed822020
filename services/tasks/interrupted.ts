import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { isSameProcess } from '../../lib/process-identity'
import type { StoredEvent } from '../events/contract'

/** A `tasks:started` payload as the log holds it (facts from before pids were recorded have none). */
export interface StartedFact {
  readonly id: string
  readonly name: string
  readonly owner?: string
  readonly pid?: number
  readonly identity?: string
}

/**
 * Tells whether the process that started a task is gone, so that a start with no end is an
 * interrupted task rather than a running one. A fact that names its process is judged by that
 * process (PID and identity: a reused PID is not it). An older fact that names none is taken to
 * be gone unless another manager is alive, which may be running it: this process's own tasks
 * are listed live before the log is consulted.
 */
export function ownerGoneCheck(dataDir: string): (fact: StartedFact) => boolean {
  let otherManager: boolean | undefined
  return (fact) => {
    if (typeof fact.pid === 'number') {
      if (fact.pid === process.pid) return false
      return !isSameProcess(fact.pid, fact.identity)
    }
    otherManager ??= otherManagerAlive(dataDir)
    return !otherManager
  }
}

/** Whether `manager.json` names a live manager that is not this process. */
function otherManagerAlive(dataDir: string): boolean {
  try {
    const info = JSON.parse(readFileSync(join(dataDir, 'manager.json'), 'utf8')) as { pid?: number; identity?: string }
    return typeof info.pid === 'number' && info.pid !== process.pid && isSameProcess(info.pid, info.identity)
  } catch {
    return false
  }
}

/** The tasks started and never finished in `events` (oldest first), with when they started. */
export function unfinished(events: readonly StoredEvent[]): { fact: StartedFact; time: string }[] {
  const open = new Map<string, { fact: StartedFact; time: string }>()
  for (const event of events) {
    const p = event.payload as StartedFact
    if (event.type === 'tasks:started') open.set(p.id, { fact: p, time: event.time })
    else open.delete(p.id)
  }
  return [...open.values()]
}

/** How the process of an interrupted task is named in its error. */
export function processName(fact: StartedFact): string {
  return typeof fact.pid === 'number' ? `PID ${fact.pid}` : 'a process that did not record its PID'
}
