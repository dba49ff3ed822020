import { Args } from '@oclif/core'
import { ManagerCommand } from '../../manager-command'

export default class TasksCancel extends ManagerCommand {
  static override summary = 'Cancel a queued task, or ask a running one to stop'
  static override description =
    'A task that waits for a slot is cancelled at once; a running one ends when its work can stop (plugin tasks see their signal aborted). Takes the full id (tasks --json).'
  static override examples = ['<%= config.bin %> tasks cancel 0b6f1c9e-...']
  static override args = { id: Args.string({ description: 'the task id', required: true }) }

  async run(): Promise<void> {
    const { args } = await this.parse(TasksCancel)
    const task = await this.request('tasks:cancel', { id: args.id })
    this.log(`Asked the task '${task.name}' to stop (it was ${task.state}).`)
  }
}
