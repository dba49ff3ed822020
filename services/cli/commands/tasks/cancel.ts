import * as Args from '@oclif/core/args'
import { ManagerCommand } from '../../manager-command'

export default class TasksCancel extends ManagerCommand {
  static override summary = 'Cancel a task, queued or running'
  static override description =
    'A task that waits for a slot never runs; a running one ends at once as cancelled and frees its slot (its work is told to stop: plugin tasks see their signal aborted). Takes the id `tasks` prints (its first 8 characters) or any unique start of the full id (tasks --json); a start shared by several tasks is refused with the candidates. A task that has already ended is refused.'
  static override examples = ['<%= config.bin %> tasks cancel 0b6f1c9e', '<%= config.bin %> tasks cancel 0b6f1c9e-...']
  static override args = { id: Args.string({ description: 'the task id, or a unique start of it', required: true }) }

  async run(): Promise<void> {
    const { args } = await this.parse(TasksCancel)
    const task = await this.request('tasks:cancel', { id: args.id })
    this.log(`Cancelled the task '${task.name}' (${task.id}).`)
  }
}
