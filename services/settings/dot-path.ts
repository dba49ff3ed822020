import { SmError } from '../../kernel'
import { setOwnProperty } from '../../lib/own-property'
import { settingKeyProblem } from '../../lib/setting-key'

export type Tree = Record<string, unknown>

/** Splits and validates a setting key (`web.port` → `['web', 'port']`; lib/setting-key.ts says what a key may be). */
export function parseKey(key: unknown): string[] {
  const problem = settingKeyProblem(key)
  if (problem) throw new SmError('SM_ERR_SETTINGS_INVALID_KEY', { key: String(key), reason: problem })
  return (key as string).split('.')
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
