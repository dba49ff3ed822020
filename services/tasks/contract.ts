import { z } from 'zod'
import { type CommandsOf, command, createToken, defineCommands, defineEvents, type EventsOf } from '../../kernel'

const taskState = z.enum(['queued', 'running', 'succeeded', 'failed', 'cancelled'])
export type TaskState = z.output<typeof taskState>

const taskError = z.object({ code: z.string(), message: z.string() }).readonly()

/** A task as `tasks` lists it. */
const taskRecord = z.object({
  id: z.string(),
  name: z.string(),
  /** Who asked: `cli:<user>`, `plugin:<name>`, `schedule`, ... */
  owner: z.string(),
  /** The server it is about, if one (an account held to server grants sees only its servers' tasks). */
  server: z.string().optional(),
  state: taskState,
  percent: z.number().optional(),
  message: z.string().optional(),
  result: z.unknown(),
  error: taskError.optional(),
  createdAt: z.string(),
  finishedAt: z.string().optional(),
})
export type TaskRecord = Readonly<z.output<typeof taskRecord>>

/** What a task's function gets: a signal that says it was cancelled, and a way to report progress. */
export interface TaskContext {
  readonly id: string
  readonly signal: AbortSignal
  progress(percent: number | undefined, message?: string): void
}

/** The task manager as other services reach it through the registry (task-manager.ts implements it). */
export interface Tasks {
  /** Runs `fn` as a task (queued behind the running ones): its id at once, and its end. */
  run<T>(
    name: string,
    fn: (ctx: TaskContext) => Promise<T>,
    options?: { readonly server?: string },
  ): { id: string; done: Promise<T> }
  /** Reports progress for the task the caller runs in (no-op outside a task). */
  progress(percent: number | undefined, message?: string): void
  /** The signal of the task the caller runs in (undefined outside a task): aborted when it is cancelled. */
  signal(): AbortSignal | undefined
  list(limit: number): TaskRecord[]
  get(id: string): TaskRecord | undefined
  /** The ids of the tasks this process knows, newest last. */
  ids(): string[]
  /** Cancels a task (queued or running); undefined when the id is not known here. */
  cancel(id: string): Promise<TaskRecord | undefined>
}

/** The task manager, for services that run their long work as tasks (a task's work is code: never a message). */
export const TASKS = createToken<Tasks>('tasks')

/** Runs `fn` as a task in this process: its id at once, and its end. */
export type RunTask = (
  name: string,
  fn: (ctx: TaskContext) => Promise<unknown>,
) => { id: string; done: Promise<unknown> }

export const tasksEvents = defineEvents(
  'tasks',
  {
    'tasks:started': z.object({
      id: z.string(),
      name: z.string(),
      owner: z.string(),
      /** The server it is about, if one. */
      server: z.string().optional(),
      /** The process running it, and its identity (lib/process-identity.ts): a task whose process is gone is interrupted. */
      pid: z.number().optional(),
      identity: z.string().optional(),
    }),
    'tasks:finished': z.object({
      id: z.string(),
      name: z.string(),
      state: z.enum(['succeeded', 'failed', 'cancelled']),
      result: z.unknown().optional(),
      error: taskError.optional(),
      ms: z.number(),
    }),
    /** A running task's progress (not recorded). */
    'tasks:progress': z.object({
      id: z.string(),
      name: z.string(),
      percent: z.number().optional(),
      message: z.string().optional(),
    }),
  },
  {
    'tasks:started': 'task_started', // formerly
    'tasks:finished': 'task_finished', // formerly
    'tasks:progress': 'task_progress', // formerly
  },
)

/** A task's record may hold a server's environment (a task's result): answered without its secrets. */
const tasksDoor = { tags: ['Tasks'], withoutServerSecrets: true } as const

export const tasksCommands = defineCommands('tasks', {
  /** Recent tasks, newest first (running and queued ones too). */
  'tasks:list': command(z.object({ limit: z.number().int().optional() }), z.array(taskRecord), {
    http: {
      ...tasksDoor,
      method: 'get',
      path: '/tasks',
      name: 'list_tasks',
      summary: 'Recent tasks, newest first',
      access: 'user',
      input: z.object({ limit: z.coerce.number().int().min(1).max(1000).default(50) }),
      key: 'tasks',
      response: 'TaskList',
    },
  }),
  /** One task, by its id or any unique start of it (SM_ERR_TASK_AMBIGUOUS lists the candidates). */
  'tasks:get': command(z.object({ id: z.string() }), taskRecord, {
    http: {
      ...tasksDoor,
      method: 'get',
      path: '/tasks/:id',
      name: 'get_task',
      summary: 'One task (by its id or any unique start of it): state, progress, result or error',
      access: 'user',
      key: 'task',
      response: 'TaskInfo',
      errors: { 404: 'No task with that id.', 409: 'The start of an id fits more than one task.' },
    },
  }),
  /**
   * Cancels a task (id or unique start of it): a queued one never runs, a running one ends at
   * once as cancelled with its signal aborted. An ended task is SM_ERR_TASK_FINISHED.
   */
  'tasks:cancel': command(z.object({ id: z.string() }), taskRecord, {
    http: {
      ...tasksDoor,
      method: 'post',
      path: '/tasks/:id/cancel',
      name: 'cancel_task',
      summary: 'Cancel a queued or running task (by its id or any unique start of it): it ends at once',
      access: 'moderator',
      key: 'task',
      response: 'TaskCancelled',
      errors: {
        404: 'No task with that id.',
        409: 'The task has already ended, or the start of an id fits more than one task.',
      },
    },
  }),
})

declare module '../../kernel/maps' {
  interface EventMap extends EventsOf<typeof tasksEvents> {}

  interface CommandMap extends CommandsOf<typeof tasksCommands> {}
}
