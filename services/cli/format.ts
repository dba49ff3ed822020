import type { StoredEvent } from '../events/contract'

/**
 * One event on one line: `#seq  time  actor  type  payload`, the time it was recorded. A fact
 * recorded after it happened (a supervisor's status change seen with no manager running)
 * says when it happened: `(happened <time>)` before its payload.
 */
export function formatEvent(event: StoredEvent): string {
  const time = shortTime(event.time)
  const at = (event.payload as { at?: unknown } | null)?.at
  const happened = typeof at === 'string' && shortTime(at) !== time ? `(happened ${shortTime(at)})  ` : ''
  return `#${event.seq}  ${time}  ${event.actor}  ${event.type}  ${happened}${JSON.stringify(event.payload)}`
}

/** `2026-01-31 12:00:00Z`: an ISO time to the second. */
export function shortTime(iso: string): string {
  return iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z')
}

/** How many are online: `2 of 10`, or `2` when the game did not say its maximum. */
export function formatOnline(list: { readonly online: number; readonly max?: number | undefined }): string {
  return list.max === undefined ? String(list.online) : `${list.online} of ${list.max}`
}

/** `3d 4h 5m 6s` (the zero parts left out; `0s` for under a second). */
export function formatUptime(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000))
  const parts = [
    [Math.floor(s / 86_400), 'd'],
    [Math.floor((s % 86_400) / 3600), 'h'],
    [Math.floor((s % 3600) / 60), 'm'],
    [s % 60, 's'],
  ] as const
  return (
    parts
      .filter(([n]) => n > 0)
      .map(([n, unit]) => `${n}${unit}`)
      .join(' ') || '0s'
  )
}

/** A size for people: `512 B`, `1.5 MiB`. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`
  const units = ['KiB', 'MiB', 'GiB', 'TiB']
  let value = bytes / 1024
  let unit = 0
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit++
  }
  return `${value.toFixed(1)} ${units[unit]}`
}

/**
 * Lines of a table: each column as wide as its widest cell, two spaces apart, the last one
 * unpadded; `right` names the columns aligned right (sizes, counts).
 */
export function table(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  right: readonly number[] = [],
): string[] {
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => (row[i] ?? '').length)))
  const last = header.length - 1
  return [header, ...rows].map((row) =>
    row
      .map((cell, i) =>
        right.includes(i) ? cell.padStart(widths[i] as number) : i < last ? cell.padEnd(widths[i] as number) : cell,
      )
      .join('  ')
      .trimEnd(),
  )
}
