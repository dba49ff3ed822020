import type { StoredEvent } from '../events/contract'

/** One event on one line: `#seq  time  actor  type  payload`. */
export function formatEvent(event: StoredEvent): string {
  const time = event.time.replace('T', ' ').replace(/\.\d+Z$/, 'Z')
  return `#${event.seq}  ${time}  ${event.actor}  ${event.type}  ${JSON.stringify(event.payload)}`
}
