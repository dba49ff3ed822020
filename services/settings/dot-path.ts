import { SmError } from '../../kernel'
import { setOwnProperty } from '../../lib/own-property'

const SEGMENT = /^[A-Za-z0-9_-]+$/
const FORBIDDEN = new Set(['__proto__', 'prototype', 'constructor'])
const MAX_KEY_LENGTH = 200
const MAX_DEPTH = 10

export type Tree = Record<string, unknown>

/** Splits and validates a setting key (`web.port` → `['web', 'port']`). */
export function parseKey(key: unknown): string[] {
  const invalid = (reason: string) => new SmError('SM_ERR_SETTINGS_INVALID_KEY', { key: String(key), reason })
  if (typeof key !== 'string' || key.trim() === '') throw invalid('it is empty')
  if (key.length > MAX_KEY_LENGTH) throw invalid(`it is longer than ${MAX_KEY_LENGTH} characters`)
  const segments = key.split('.')
  if (segments.length > MAX_DEPTH) throw invalid(`it has more than ${MAX_DEPTH} parts`)
  for (const segment of segments) {
    if (segment === '') throw invalid('it has an empty part (two dots in a row, or a dot at an end)')
    if (!SEGMENT.test(segment))
      throw invalid(`the part '${segment}' has characters other than letters, digits, '_' and '-'`)
    if (FORBIDDEN.has(segment)) throw invalid(`'${segment}' is reserved`)
  }
  return segments
}

export function isTree(value: unknown): value is Tree {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

export function getPath(tree: unknown, segments: readonly string[]): unknown {
  let node: unknown = tree
  for (const segment of segments) {
    if (!isTree(node) || !Object.hasOwn(node, segment)) return undefined
    node = node[segment]
  }
  return node
}

/**
 * Puts `value` at `segments` inside `tree`, creating intermediate objects. Mutates `tree` (the
 * caller owns it: it was just parsed) but never aliases `value`, so later changes at deeper
 * paths cannot reach back into the caller's object.
 */
export function assignPath(tree: Tree, segments: readonly string[], value: unknown): void {
  let node = tree
  for (const segment of segments.slice(0, -1)) {
    // Own values only: `valueOf` is a key like any other, never Object.prototype's method.
    if (!(Object.hasOwn(node, segment) && isTree(node[segment]))) setOwnProperty(node, segment, {})
    node = node[segment] as Tree
  }
  const last = segments[segments.length - 1] as string
  setOwnProperty(node, last, value !== null && typeof value === 'object' ? structuredClone(value) : value)
}

/** `over` laid over `base`, objects merged key by key, everything else replaced. */
export function deepMerge(base: unknown, over: unknown): unknown {
  if (over === undefined) return base
  if (!isTree(base) || !isTree(over)) return over
  const merged: Tree = { ...base }
  for (const [key, value] of Object.entries(over))
    setOwnProperty(merged, key, deepMerge(Object.hasOwn(base, key) ? base[key] : undefined, value))
  return merged
}
