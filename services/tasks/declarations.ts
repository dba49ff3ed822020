import type { ServiceDeclaration } from '../../kernel'
import { tasksErrors } from './errors'
import { tasksSettings } from './settings'

/**
 * The tasks service (long work as tasks) without its implementation (kernel/service.ts): a process
 * that does not run it knows its codes and settings from this alone (manager.ts), and index.ts
 * runs it.
 */
export const tasksDeclaration: ServiceDeclaration = {
  name: 'tasks',
  dependsOn: ['events', 'settings'],
  known: [tasksErrors, tasksSettings],
  // Its contract (and actions) load with the first call: a process that does not run it never needs them.
  declares() {
    const contract = require('./contract') as typeof import('./contract')
    return [contract.tasksCommands, contract.tasksEvents, tasksErrors, tasksSettings]
  },
}
