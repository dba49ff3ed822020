import type { StoredEvent } from '../events/contract'

/** A command-line value: JSON when it parses as JSON (`8080`, `true`, `{"a":1}`), else the text itself. */
export function parseValue(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/** A setting for people: strings as they are, everything else as JSON. */
export function formatValue(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2)
}

/** One event on one line: `#seq  time  actor  type  payload`. */
export function formatEvent(event: StoredEvent): string {
  const time = event.time.replace('T', ' ').replace(/\.\d+Z$/, 'Z')
  return `#${event.seq}  ${time}  ${event.actor}  ${event.type}  ${JSON.stringify(event.payload)}`
}
