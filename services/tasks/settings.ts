import { defineSettings, wholeNumber } from '../../kernel/setting-catalogue'

/** The task manager's settings (docs/settings.md). */
export const tasksSettings = defineSettings('tasks', {
  'tasks.max_concurrent': {
    default: 4,
    summary: 'tasks running at once in the manager; the rest wait in order',
    rule: wholeNumber(1, 64),
  },
})
