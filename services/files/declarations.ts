import type { ServiceDeclaration } from '../../kernel'
import { filesActions } from './actions'
import { filesCommands } from './contract'
import { filesErrors } from './errors'
import { filesSettings } from './settings'

/**
 * The files service (the file manager of servers' directories) without its implementation: a process that does not run
 * it declares it from this alone (manager.ts), and index.ts runs it.
 */
export const filesDeclaration: ServiceDeclaration = {
  name: 'files',
  declares: [filesCommands, filesActions, filesErrors, filesSettings],
  dependsOn: ['events', 'settings', 'servers'],
}
