import type { ServiceDeclaration } from '../../kernel'
import { metricsCommands, metricsEvents } from './contract'
import { metricsSettings } from './settings'

/**
 * The metrics service (the host's and servers' resource samples) without its implementation: a process that does not run
 * it declares it from this alone (manager.ts), and index.ts runs it.
 */
export const metricsDeclaration: ServiceDeclaration = {
  name: 'metrics',
  declares: [metricsCommands, metricsEvents, metricsSettings],
  dependsOn: ['settings'],
}
