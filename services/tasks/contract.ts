import { createToken } from '../../kernel/registry'
import type { TaskManager } from './task-manager'

export type TaskState = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled'

/** A task as `tasks` lists it. */
export interface TaskRecord {
  readonly id: string
  readonly name: string
  /** Who asked: `cli:<user>`, `plugin:<name>`, `schedule`, ... */
  readonly owner: string
  readonly state: TaskState
  readonly percent: number | undefined
  readonly message: string | undefined
  readonly result: unknown
  readonly error: { readonly code: string; readonly message: string } | undefined
  readonly createdAt: string
  readonly finishedAt: string | undefined
}

/** What a task's function gets: a signal that says it was cancelled, and a way to report progress. */
export interface TaskContext {
  readonly id: string
  readonly signal: AbortSignal
  progress(percent: number | undefined, message?: string): void
}

/** The task manager, for services that run their long work as tasks (a task's work is code: never a message). */
export const TASKS = createToken<TaskManager>('tasks')

/** Runs `fn` as a task in this process: its id at once, and its end. */
export type RunTask = (
  name: string,
  fn: (ctx: TaskContext) => Promise<unknown>,
) => { id: string; done: Promise<unknown> }

declare module '../../kernel/maps' {
  interface EventMap {
    task_started: {
      readonly id: string
      readonly name: string
      readonly owner: string
      /** The process running it, and its identity (kernel/process-identity): a task whose process is gone is interrupted. */
      readonly pid?: number
      readonly identity?: string
    }
    task_finished: {
      readonly id: string
      readonly name: string
      readonly state: 'succeeded' | 'failed' | 'cancelled'
      readonly result?: unknown
      readonly error?: { readonly code: string; readonly message: string }
      readonly ms: number
    }
    /** A running task's progress (not recorded). */
    task_progress: {
      readonly id: string
      readonly name: string
      readonly percent: number | undefined
      readonly message: string | undefined
    }
  }

  interface CommandMap {
    /** Recent tasks, newest first (running and queued ones too). */
    'tasks:list': { payload: { limit?: number }; reply: TaskRecord[] }
    /** One task, by its id or any unique start of it (SM_ERR_TASK_AMBIGUOUS lists the candidates). */
    'tasks:get': { payload: { id: string }; reply: TaskRecord }
    /**
     * Cancels a task (id or unique start of it): a queued one never runs, a running one ends at
     * once as cancelled with its signal aborted. An ended task is SM_ERR_TASK_FINISHED.
     */
    'tasks:cancel': { payload: { id: string }; reply: TaskRecord }
  }
}
