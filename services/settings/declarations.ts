import type { ServiceDeclaration } from '../../kernel'
import { settingsErrors } from './errors'

/**
 * The settings service (the global settings) without its implementation (kernel/service.ts): a
 * process that does not run it knows its codes and settings from this alone (manager.ts), and
 * index.ts runs it.
 */
export const settingsDeclaration: ServiceDeclaration = {
  name: 'settings',
  dependsOn: ['events'],
  known: [settingsErrors],
  // Its contract (and actions) load with the first call: a process that does not run it never needs them.
  declares() {
    const contract = require('./contract') as typeof import('./contract')
    const actions = require('./actions') as typeof import('./actions')
    return [contract.settingsCommands, contract.settingsEvents, actions.settingsActions, settingsErrors]
  },
}
