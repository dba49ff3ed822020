import type { ServiceDeclaration } from '../../kernel'
import { settingsActions } from './actions'
import { settingsCommands, settingsEvents } from './contract'
import { settingsErrors } from './errors'

/**
 * The settings service (the global settings) without its implementation: a process that does not run
 * it declares it from this alone (manager.ts), and index.ts runs it.
 */
export const settingsDeclaration: ServiceDeclaration = {
  name: 'settings',
  declares: [settingsCommands, settingsEvents, settingsActions, settingsErrors],
  dependsOn: ['events'],
}
