import type { ServiceDeclaration } from '../../kernel'
import { pluginsActions } from './actions'
import { pluginsCommands, pluginsEvents } from './contract'
import { pluginsErrors } from './errors'
import { pluginsSettings } from './settings'

/**
 * The plugins service (the plugins: discovery, loading, their threads) without its implementation: a process that does not run
 * it declares it from this alone (manager.ts), and index.ts runs it.
 */
export const pluginsDeclaration: ServiceDeclaration = {
  name: 'plugins',
  declares: [pluginsCommands, pluginsEvents, pluginsActions, pluginsErrors, pluginsSettings],
  // Plugins call servers and run tasks from their first hook; their routes go live where a web
  // server runs in this process (the manager), and are simply not served where none does.
  dependsOn: ['events', 'settings', 'tasks', 'servers'],
  after: ['web'],
}
