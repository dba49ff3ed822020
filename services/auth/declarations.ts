import type { ServiceDeclaration } from '../../kernel'
import { authErrors } from './errors'
import { authSettings } from './settings'

/**
 * The auth service (accounts, sessions, tokens, grants and two-factor sign-in) without its
 * implementation (kernel/service.ts): a process that does not run it knows its codes and settings
 * from this alone (manager.ts), and index.ts runs it.
 */
export const authDeclaration: ServiceDeclaration = {
  name: 'auth',
  dependsOn: ['events', 'settings'],
  known: [authErrors, authSettings],
  // Its contract (and actions) load with the first call: a process that does not run it never needs them.
  declares() {
    const contract = require('./contract') as typeof import('./contract')
    return [contract.authCommands, contract.authEvents, authErrors, authSettings]
  },
}
