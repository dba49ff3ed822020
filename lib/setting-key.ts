const SEGMENT = /^[A-Za-z0-9_-]+$/
const FORBIDDEN = new Set(['__proto__', 'prototype', 'constructor'])
export const MAX_KEY_LENGTH = 200
const MAX_DEPTH = 10

/**
 * Why `key` cannot name a setting, or undefined: the one rule for global setting keys
 * (`web.port`, `custom.rcon.pw`) and a server's own (`custom.<key>`). Dot-separated parts of
 * letters, digits, `_` and `-`, at most 10 of them and 200 characters in all, none of them
 * `__proto__`, `prototype` or `constructor`.
 */
export function settingKeyProblem(key: unknown): string | undefined {
  if (typeof key !== 'string' || key.trim() === '') return 'it is empty'
  if (key.length > MAX_KEY_LENGTH) return `it is longer than ${MAX_KEY_LENGTH} characters`
  const segments = key.split('.')
  if (segments.length > MAX_DEPTH) return `it has more than ${MAX_DEPTH} parts`
  for (const segment of segments) {
    if (segment === '') return 'it has an empty part (two dots in a row, or a dot at an end)'
    if (!SEGMENT.test(segment)) return `the part '${segment}' has characters other than letters, digits, '_' and '-'`
    if (FORBIDDEN.has(segment)) return `'${segment}' is reserved`
  }
  return undefined
}
