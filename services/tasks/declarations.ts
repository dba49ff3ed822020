import type { ServiceDeclaration } from '../../kernel'
import { tasksCommands, tasksEvents } from './contract'
import { tasksErrors } from './errors'
import { tasksSettings } from './settings'

/**
 * The tasks service (long work as tasks) without its implementation: a process that does not run
 * it declares it from this alone (manager.ts), and index.ts runs it.
 */
export const tasksDeclaration: ServiceDeclaration = {
  name: 'tasks',
  declares: [tasksCommands, tasksEvents, tasksErrors, tasksSettings],
  dependsOn: ['events', 'settings'],
}
