import type { ServiceDeclaration } from '../../kernel'
import { authCommands, authEvents } from './contract'
import { authErrors } from './errors'
import { authSettings } from './settings'

/**
 * The auth service (accounts, sessions, tokens, grants and two-factor sign-in) without its implementation: a process that does not run
 * it declares it from this alone (manager.ts), and index.ts runs it.
 */
export const authDeclaration: ServiceDeclaration = {
  name: 'auth',
  declares: [authCommands, authEvents, authErrors, authSettings],
  dependsOn: ['events', 'settings'],
}
