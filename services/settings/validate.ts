import { reasonOf, SmError } from '../../kernel'
import { formatBytes, measureJson } from '../../lib/json-value'
import { REDACTED } from '../../lib/secrets'
import type { DeclaredSettings } from './declared'
import { isTree } from './dot-path'

/** The largest value one setting change may store, as UTF-8 JSON (docs/settings.md). */
export const MAX_VALUE_BYTES = 1024 * 1024

/**
 * Checks that `value` may be stored at `key`: plain JSON of at most 1 MiB, and for a declared
 * key (or a group of them) the default's type and the declared rule. Returns it as JSON keeps it.
 */
export function validateSetting(
  key: string,
  segments: readonly string[],
  value: unknown,
  declared: DeclaredSettings,
): unknown {
  const invalid = (reason: string) => new SmError('SM_ERR_SETTINGS_INVALID_VALUE', { key, reason })
  if (value === undefined) throw invalid('there is no value')
  try {
    measureJson(value, MAX_VALUE_BYTES)
  } catch (error) {
    throw invalid(reasonOf(error).replace(formatBytes(MAX_VALUE_BYTES), `${formatBytes(MAX_VALUE_BYTES)} of JSON`))
  }
  const stored: unknown = JSON.parse(JSON.stringify(value))
  // A value copied from an output (setting get, the API, a hook payload) would overwrite the
  // secret with its placeholder.
  if (holdsPlaceholder(stored))
    throw invalid(
      `it holds '${REDACTED}', the placeholder shown for a secret: give the real value (setting get --reveal shows it)`,
    )
  if (segments[0] === 'custom') {
    if (segments.length === 1 && !isTree(stored)) throw invalid("'custom' holds keys; set 'custom.<key>' instead")
    return stored
  }
  checkDeclared(key, stored, declared)
  return stored
}

function checkDeclared(key: string, value: unknown, declared: DeclaredSettings): void {
  const invalid = (reason: string) => new SmError('SM_ERR_SETTINGS_INVALID_VALUE', { key, reason })
  const spec = declared.spec(key)
  if (!spec) {
    // A group (`web`): an object whose fields are its settings.
    if (!isTree(value)) throw invalid(`'${key}' is a group of settings: give an object such as {"name": value}`)
    for (const [child, item] of Object.entries(value)) {
      const childKey = `${key}.${child}`
      declared.assertKnown(childKey, childKey.split('.'))
      checkDeclared(childKey, item, declared)
    }
    return
  }
  const expected = kind(declared.defaultAt(key.split('.')))
  if (kind(value) !== expected) throw invalid(`it must be ${article(expected)}, not ${describe(value)}`)
  const problem = spec.rule?.(value)
  if (problem) throw invalid(problem)
}

function kind(value: unknown): string {
  if (Array.isArray(value)) return 'list'
  if (value === null) return 'null'
  return typeof value
}

function article(kindName: string): string {
  return kindName === 'object' ? 'an object' : `a ${kindName}`
}

function describe(value: unknown): string {
  return `${kind(value)} ${JSON.stringify(value).slice(0, 40)}`
}

function holdsPlaceholder(value: unknown): boolean {
  if (typeof value === 'string') return value.includes(REDACTED)
  if (value === null || typeof value !== 'object') return false
  return Object.values(value).some(holdsPlaceholder)
}
