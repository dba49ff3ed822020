import type { ServiceDeclaration } from '../../kernel'
import { pluginsErrors } from './errors'
import { pluginsSettings } from './settings'

/**
 * The plugins service (the plugins: discovery, loading, their threads) without its implementation
 * (kernel/service.ts): a process that does not run it knows its codes and settings from this alone
 * (manager.ts), and index.ts runs it.
 */
export const pluginsDeclaration: ServiceDeclaration = {
  name: 'plugins',
  // Plugins call servers and run tasks from their first hook; their routes go live where a web
  // server runs in this process (the manager), and are simply not served where none does.
  dependsOn: ['events', 'settings', 'tasks', 'servers'],
  after: ['web'],
  known: [pluginsErrors, pluginsSettings],
  // Its contract (and actions) load with the first call: a process that does not run it never needs them.
  declares() {
    const contract = require('./contract') as typeof import('./contract')
    const actions = require('./actions') as typeof import('./actions')
    return [contract.pluginsCommands, contract.pluginsEvents, actions.pluginsActions, pluginsErrors, pluginsSettings]
  },
}
