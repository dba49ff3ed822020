import * as Flags from '@oclif/core/flags'
import { ManagerCommand } from '../../manager-command'

export default class Tasks extends ManagerCommand {
  protected override loadsPlugins = false
  protected override services = ['tasks'] as const
  static override summary = 'List recent tasks (starts, stops, backups, restores, plugin jobs), newest first'
  static override description =
    'With a manager running, its live tasks show their progress; tasks of other processes come from the event log (tasks:started, tasks:finished); one whose process ended before it finished is shown (and recorded) as failed, SM_ERR_TASK_INTERRUPTED.'
  static override examples = ['<%= config.bin %> tasks', '<%= config.bin %> tasks --json --limit 5']
  static override flags = {
    limit: Flags.integer({ description: 'at most this many', default: 20, min: 1, max: 1_000 }),
    json: Flags.boolean({ description: 'print them as JSON' }),
  }

  async run(): Promise<void> {
    const { flags } = await this.parse(Tasks)
    const tasks = await this.request('tasks:list', { limit: flags.limit })
    if (flags.json) return this.printJson(tasks)
    if (tasks.length === 0) return this.log('No tasks yet.')
    for (const t of tasks) {
      const progress = t.state === 'running' && t.percent !== undefined ? ` ${t.percent}%` : ''
      const detail = t.error
        ? `  ${t.error.code}: ${t.error.message}`
        : t.message && t.state === 'running'
          ? `  ${t.message}`
          : ''
      this.log(`${t.id.slice(0, 8)}  ${t.state.padEnd(9)}${progress}  ${t.createdAt}  ${t.owner}  ${t.name}${detail}`)
    }
  }
}
