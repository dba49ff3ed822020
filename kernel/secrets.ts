import { setOwnProperty } from './own-property'

const SECRET_NAME =
  /passw(or)?d|passphrase|(^|[-_.])pass$|secret|token|jwt|(api|private|access|signing|encryption|ssh|master)[-_]?key|authori[sz]ation|cookie|credential|session[-_]?(id|key)/i

/** Whether a field or setting name looks like it holds a secret. One rule for logs, events and plugins. */
export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name)
}

export const REDACTED = '[redacted]'
const MAX_DEPTH = 200

/**
 * A copy of `value` with every secret-looking field replaced (`mask`) or dropped (`drop`), at
 * any depth; the same rule everywhere a payload leaves trusted code (plugin hooks, logs, the
 * event log's output). Besides secret-named fields it hides the value of a key/value pair whose
 * key is secret-named (`{ key: 'custom.db_password', value, previous }`, `{ name: 'API_TOKEN',
 * value }`). Returns `value` itself when there is nothing to hide. Cycles and values nested
 * deeper than 200 levels are shown as placeholders, never unfiltered.
 */
export function withoutSecrets(value: unknown, mode: 'mask' | 'drop' = 'mask'): unknown {
  return redact(value, mode, 0, new Set())
}

function redact(value: unknown, mode: 'mask' | 'drop', depth: number, path: Set<object>): unknown {
  if (value === null || typeof value !== 'object') return value
  if (value instanceof Error)
    return { name: value.name, message: value.message, code: (value as { code?: unknown }).code }
  if (path.has(value)) return '[cycle]'
  if (depth >= MAX_DEPTH) return '[too deep to show]'
  path.add(value)
  try {
    if (Array.isArray(value)) {
      let changed = false
      const out = value.map((item) => {
        const safe = redact(item, mode, depth + 1, path)
        changed ||= safe !== item
        return safe
      })
      return changed ? out : value
    }
    const record = value as Record<string, unknown>
    const pairName = typeof record.key === 'string' ? record.key : typeof record.name === 'string' ? record.name : ''
    const secretPair = pairName !== '' && isSecretName(pairName)
    let changed = false
    const out: Record<string, unknown> = {}
    for (const [key, item] of Object.entries(record)) {
      if (isSecretName(key) || (secretPair && (key === 'value' || key === 'previous'))) {
        changed = true
        if (mode === 'mask') setOwnProperty(out, key, REDACTED)
        continue
      }
      const safe = redact(item, mode, depth + 1, path)
      changed ||= safe !== item
      setOwnProperty(out, key, safe)
    }
    return changed ? out : value
  } finally {
    path.delete(value)
  }
}
