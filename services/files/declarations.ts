import type { ServiceDeclaration } from '../../kernel'
import { filesErrors } from './errors'
import { filesSettings } from './settings'

/**
 * The files service (the file manager of servers' directories) without its implementation
 * (kernel/service.ts): a process that does not run it knows its codes and settings from this alone
 * (manager.ts), and index.ts runs it.
 */
export const filesDeclaration: ServiceDeclaration = {
  name: 'files',
  dependsOn: ['events', 'settings', 'servers'],
  known: [filesErrors, filesSettings],
  // Its contract (and actions) load with the first call: a process that does not run it never needs them.
  declares() {
    const contract = require('./contract') as typeof import('./contract')
    const actions = require('./actions') as typeof import('./actions')
    return [contract.filesCommands, actions.filesActions, filesErrors, filesSettings]
  },
}
