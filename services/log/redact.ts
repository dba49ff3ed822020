const SECRET_NAME = /pass(word|phrase)?|secret|token|jwt|api[-_]?key|authori[sz]ation|cookie|credential/i

/**
 * Replaces the values of fields whose names look secret, at any depth, so secrets never reach
 * a log line. Depth is bounded because log fields are data, not object graphs.
 */
export function redact(value: unknown, depth = 0): unknown {
  if (depth > 6 || value === null || typeof value !== 'object') return value
  if (value instanceof Error)
    return { name: value.name, message: value.message, code: (value as { code?: unknown }).code }
  if (Array.isArray(value)) return value.map((item) => redact(item, depth + 1))
  const out: Record<string, unknown> = {}
  for (const [key, item] of Object.entries(value)) {
    out[key] = SECRET_NAME.test(key) ? '[redacted]' : redact(item, depth + 1)
  }
  return out
}
