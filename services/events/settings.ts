import { defineSettings, wholeNumber } from '../../kernel/setting-catalogue'

/** The event log's settings (docs/settings.md). */
export const eventsSettings = defineSettings('events', {
  'events.retention_days': {
    default: 365,
    summary: 'event-log history kept, in days',
    rule: wholeNumber(1, 36_500),
  },
  'events.max_events': {
    default: 1_000_000,
    summary: 'event-log history kept, in events',
    rule: wholeNumber(1_000, 1_000_000_000),
  },
})
