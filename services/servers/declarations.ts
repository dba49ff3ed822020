import type { ServiceDeclaration } from '../../kernel'
import { serversActions } from './actions'
import { serversCommands, serversEvents } from './contract'
import { serversErrors } from './errors'
import { serversSettings } from './settings'

/**
 * The servers service (the game servers: registry, power, console, backups, players, schedules) without its implementation: a process that does not run
 * it declares it from this alone (manager.ts), and index.ts runs it.
 */
export const serversDeclaration: ServiceDeclaration = {
  name: 'servers',
  declares: [serversCommands, serversEvents, serversActions, serversErrors, serversSettings],
  dependsOn: ['events', 'settings', 'tasks', 'metrics'],
}
