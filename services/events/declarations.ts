import type { ServiceDeclaration } from '../../kernel'
import { eventsErrors } from './errors'
import { eventsSettings } from './settings'

/**
 * The events service (the event log and its projections) without its implementation
 * (kernel/service.ts): a process that does not run it knows its codes and settings from this alone
 * (manager.ts), and index.ts runs it.
 */
export const eventsDeclaration: ServiceDeclaration = {
  name: 'events',
  // The log file's owner stops last; the bridge holds the data directory's lock first.
  after: ['log', 'bridge'],
  // Another host's facts it takes in (events:ingest) reach this bus's listeners from here.
  relays: true,
  known: [eventsErrors, eventsSettings],
  // Its contract (and actions) load with the first call: a process that does not run it never needs them.
  declares() {
    const contract = require('./contract') as typeof import('./contract')
    return [contract.eventsCommands, contract.eventsEvents, eventsErrors, eventsSettings]
  },
}
