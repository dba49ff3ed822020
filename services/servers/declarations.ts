import type { ServiceDeclaration } from '../../kernel'
import { serversErrors } from './errors'
import { serversSettings } from './settings'

/**
 * The servers service (the game servers: registry, power, console, backups, players, schedules)
 * without its implementation (kernel/service.ts): a process that does not run it knows its codes
 * and settings from this alone (manager.ts), and index.ts runs it.
 */
export const serversDeclaration: ServiceDeclaration = {
  name: 'servers',
  dependsOn: ['events', 'settings', 'tasks', 'metrics'],
  known: [serversErrors, serversSettings],
  // Its contract (and actions) load with the first call: a process that does not run it never needs them.
  declares() {
    const contract = require('./contract') as typeof import('./contract')
    const actions = require('./actions') as typeof import('./actions')
    return [contract.serversCommands, contract.serversEvents, actions.serversActions, serversErrors, serversSettings]
  },
}
