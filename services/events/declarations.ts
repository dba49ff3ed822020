import type { ServiceDeclaration } from '../../kernel'
import { eventsCommands, eventsEvents } from './contract'
import { eventsErrors } from './errors'
import { eventsSettings } from './settings'

/**
 * The events service (the event log and its projections) without its implementation: a process that does not run
 * it declares it from this alone (manager.ts), and index.ts runs it.
 */
export const eventsDeclaration: ServiceDeclaration = {
  name: 'events',
  declares: [eventsCommands, eventsEvents, eventsErrors, eventsSettings],
  // The log file's owner stops last; the bridge holds the data directory's lock first.
  after: ['log', 'bridge'],
  // Another host's facts it takes in (events:ingest) reach this bus's listeners from here.
  relays: true,
}
