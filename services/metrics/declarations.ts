import type { ServiceDeclaration } from '../../kernel'
import { metricsSettings } from './settings'

/**
 * The metrics service (the host's and servers' resource samples) without its implementation
 * (kernel/service.ts): a process that does not run it knows its codes and settings from this alone
 * (manager.ts), and index.ts runs it.
 */
export const metricsDeclaration: ServiceDeclaration = {
  name: 'metrics',
  dependsOn: ['settings'],
  known: [metricsSettings],
  // Its contract (and actions) load with the first call: a process that does not run it never needs them.
  declares() {
    const contract = require('./contract') as typeof import('./contract')
    return [contract.metricsCommands, contract.metricsEvents, metricsSettings]
  },
}
