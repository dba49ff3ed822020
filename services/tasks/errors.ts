import { defineErrors, type ErrorMapOf, spec } from '../../kernel/error-catalogue'

/** The tasks service's error codes (docs/errors.md). */
export const tasksErrors = defineErrors('tasks', {
  SM_ERR_TASK_NOT_FOUND: spec<{ id: string }>({
    status: 404,
    exit: 66,
    when: 'A task id that is not known.',
    message: (p) =>
      `No task has the id '${p.id}': the id is wrong, or the task had not started when the manager stopped (queued, or refused by a full disk). 'server-manager tasks' lists the known ones.`,
    web: (p) =>
      `No task has the id '${p.id}': the id is wrong, or the task had not started when the manager stopped (queued, or refused by a full disk). The Tasks page lists the known ones.`,
  }),
  SM_ERR_TASK_AMBIGUOUS: spec<{ id: string; candidates: string }>({
    status: 409,
    exit: 64,
    when: 'A task id prefix matches more than one task.',
    message: (p) => `'${p.id}' is the start of more than one task id: ${p.candidates}. Give more of the id.`,
  }),
  SM_ERR_TASK_FINISHED: spec<{ id: string; name: string; state: string }>({
    status: 409,
    exit: 65,
    when: 'A task that has already ended was asked to stop.',
    message: (p) => `The task '${p.name}' (${p.id}) has already ended (${p.state}); there is nothing to cancel.`,
  }),
  SM_ERR_TASK_NOT_RUNNABLE: spec<{ name: string }>({
    status: 422,
    exit: 64,
    when: 'A task was asked for without a function to run (from another process, which cannot send one).',
    message: (p) =>
      `The task '${p.name}' has no function to run. Tasks run in the process that asks for them: call this.api.runTask from plugin code in the manager.`,
  }),
  SM_ERR_TASK_INTERRUPTED: spec<{ id: string; name: string; pid: string }>({
    status: 500,
    exit: 75,
    when: 'A task whose process ended (killed, crashed, lost its machine) before the task finished.',
    message: (p) =>
      `The task '${p.name}' (${p.id}) was interrupted: the process running it (${p.pid}) ended before it recorded the task's end (it was killed, or could not write). Check what it did and run it again if needed.`,
  }),
  SM_ERR_TASK_CANCELLED: spec<{ id: string; name: string }>({
    status: 409,
    exit: 1,
    when: 'A task was cancelled before it finished.',
    message: (p) => `The task '${p.name}' (${p.id}) was cancelled.`,
  }),
})

declare module '../../kernel/error-catalogue' {
  interface ErrorMap extends ErrorMapOf<typeof tasksErrors> {}
}
