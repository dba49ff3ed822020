import { reasonOf, SmError } from '../../kernel'
import { getPath, isTree } from './dot-path'

const MAX_VALUE_BYTES = 1024 * 1024

type Rule = (value: unknown) => string | undefined

const wholeNumber =
  (min: number, max: number): Rule =>
  (value) =>
    Number.isInteger(value) && (value as number) >= min && (value as number) <= max
      ? undefined
      : `it must be a whole number from ${min} to ${max}`

/** Range rules beyond "same type as the default". */
const RULES: Record<string, Rule> = {
  'web.port': wholeNumber(1, 65_535),
  'web.token_expires_weeks': wholeNumber(1, 520),
  'retention.backups': wholeNumber(0, 10_000),
  'retention.downloads': wholeNumber(0, 10_000),
  'retention.logs': wholeNumber(0, 10_000),
  'events.retention_days': wholeNumber(1, 36_500),
  'events.max_events': wholeNumber(1_000, 1_000_000_000),
  'plugins.hook_timeout_ms': wholeNumber(1, 600_000),
  'servers.stop_timeout_sec': wholeNumber(1, 3_600),
  'logging.level': (v) =>
    ['debug', 'info', 'warn', 'error'].includes(v as string) ? undefined : 'it must be debug, info, warn or error',
}

/**
 * Checks that `value` may be stored at `segments`: JSON, of bounded size, a known key (or under
 * `custom`), of the default's type and within its range. Returns the value as JSON will keep it.
 */
export function validateSetting(segments: readonly string[], value: unknown, defaults: unknown): unknown {
  const key = segments.join('.')
  const invalid = (reason: string) => new SmError('SM_ERR_SETTINGS_INVALID_VALUE', { key, reason })
  let text: string | undefined
  try {
    text = JSON.stringify(value)
  } catch (error) {
    throw invalid(`it cannot be stored as JSON (${reasonOf(error)})`)
  }
  if (text === undefined) throw invalid('it cannot be stored as JSON')
  if (text.length > MAX_VALUE_BYTES) throw invalid('it is larger than 1 MiB')
  const stored: unknown = JSON.parse(text)

  if (segments[0] === 'custom') {
    if (segments.length === 1 && !isTree(stored))
      throw invalid("'custom' must stay an object; set 'custom.<key>' instead")
    return stored
  }
  const fallback = getPath(defaults, segments)
  if (fallback === undefined) {
    throw new SmError('SM_ERR_SETTINGS_INVALID_KEY', {
      key,
      reason: `there is no such setting (known sections: ${Object.keys(defaults as object).join(', ')}; plugin data goes under 'custom.')`,
    })
  }
  const expected = kind(fallback)
  if (kind(stored) !== expected)
    throw invalid(`it must be ${expected === 'object' ? 'an object' : `a ${expected}`}, not ${describe(stored)}`)
  const problem = RULES[key]?.(stored)
  if (problem) throw invalid(problem)
  if (isTree(stored)) {
    for (const [child, item] of Object.entries(stored)) validateSetting([...segments, child], item, defaults)
  }
  return stored
}

function kind(value: unknown): string {
  if (Array.isArray(value)) return 'list'
  if (value === null) return 'null'
  return typeof value
}

function describe(value: unknown): string {
  return `${kind(value)} ${JSON.stringify(value).slice(0, 40)}`
}
