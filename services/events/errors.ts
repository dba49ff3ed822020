import { defineErrors, type ErrorMapOf, spec } from '../../kernel/error-catalogue'

/** The events service's error codes (docs/errors.md). */
export const eventsErrors = defineErrors('events', {
  SM_ERR_DB_CORRUPT: spec<{ path: string; reason: string }>({
    status: 500,
    exit: 65,
    when: 'The database file is not SQLite, is damaged, or belongs to something else.',
    message: (p) =>
      `The database '${p.path}' is damaged or is not a server-manager database (${p.reason}). It was left untouched: move it aside and restore a backup, or start with an empty data directory.`,
  }),
  SM_ERR_DB_READONLY: spec<{ path: string }>({
    status: 500,
    exit: 74,
    when: 'The database file or its directory cannot be written.',
    message: (p) =>
      `The database '${p.path}' is read-only. Make the file and its directory writable for this user; nothing was written.`,
  }),
  SM_ERR_DB_BUSY: spec<{ path: string; ms: number }>({
    status: 503,
    exit: 75,
    when: 'Another process held the database lock for longer than the retry budget.',
    message: (p) =>
      `The database '${p.path}' stayed locked by another process for ${p.ms} ms. Nothing was written: try again, and if it persists find the process that holds it.`,
  }),
  SM_ERR_DB_NEWER_SCHEMA: spec<{ path: string; found: number; supported: number }>({
    status: 500,
    exit: 65,
    when: 'The database was written by a newer server-manager.',
    message: (p) =>
      `The database '${p.path}' has schema version ${p.found}, newer than the ${p.supported} this version understands. Upgrade server-manager; the file was left untouched.`,
  }),
  SM_ERR_DB_FULL: spec<{ path: string; unchanged?: string }>({
    status: 507,
    exit: 74,
    when: 'The disk that holds the database is full, so nothing can be recorded (a change that is only its fact, a setting or a plugin enabled, is not made).',
    message: (p) =>
      `The disk that holds the database '${p.path}' is full, so nothing could be recorded${p.unchanged ? `: ${p.unchanged}` : ''}. Free space on it; the manager goes on working once there is room, without a restart.`,
  }),
  SM_ERR_DB_IO: spec<{ path: string; reason: string }>({
    status: 500,
    exit: 74,
    when: 'Any other failure reading or writing the database.',
    message: (p) =>
      `Could not use the database '${p.path}': ${p.reason}. Nothing was written half-way; check the disk.`,
  }),
  SM_ERR_DB_REPLACED: spec<{ path: string; reason: string }>({
    status: 500,
    exit: 74,
    when: 'The database file was deleted or replaced under a running manager.',
    message: (p) =>
      `The database '${p.path}' ${p.reason} while the manager was running, so the manager stopped rather than write to a file nobody reads. Put the right file back (or keep the new one) and start the manager again.`,
  }),
  SM_ERR_EVENTS_INVALID_EVENT: spec<{ reason: string }>({
    status: 422,
    exit: 65,
    when: 'An event to append has no type, no actor, or a payload that is not JSON.',
    message: (p) => `The event cannot be stored: ${p.reason}. Nothing was appended.`,
  }),
  SM_ERR_EVENTS_INVALID_QUERY: spec<{ reason: string }>({
    status: 422,
    exit: 64,
    when: 'A filter for reading the event log is malformed.',
    message: (p) => `The event query is invalid: ${p.reason}.`,
  }),
  SM_ERR_EVENTS_PROJECTION_FAILED: spec<{ projection: string; events: string; reason: string }>({
    status: 500,
    exit: 70,
    when: 'A projection could not apply an event; the whole append was rolled back.',
    message: (p) =>
      `The projection '${p.projection}' could not apply the events ${p.events}: ${p.reason}. The append was rolled back, so nothing was written.`,
  }),
  SM_ERR_EVENTS_UNKNOWN_PROJECTION: spec<{ projection: string }>({
    status: 500,
    exit: 70,
    when: 'A projection was read that no service registered.',
    message: (p) => `No projection named '${p.projection}' is registered. Start the service that owns it first.`,
  }),
})

declare module '../../kernel/error-catalogue' {
  interface ErrorMap extends ErrorMapOf<typeof eventsErrors> {}
}
