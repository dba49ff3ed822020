const SECRET_NAME = /pass(word|phrase)?|secret|token|jwt|api[-_]?key|authori[sz]ation|cookie|credential|hash/i

/** Whether a field or setting name looks like it holds a secret. One rule for logs, events and plugins. */
export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name)
}

/**
 * A copy of `value` with every secret-looking field replaced (`mask`) or dropped (`drop`), at any
 * depth. Depth is bounded because this is for data, not object graphs.
 */
export function withoutSecrets(value: unknown, mode: 'mask' | 'drop' = 'mask', depth = 0): unknown {
  if (depth > 6 || value === null || typeof value !== 'object') return value
  if (value instanceof Error)
    return { name: value.name, message: value.message, code: (value as { code?: unknown }).code }
  if (Array.isArray(value)) return value.map((item) => withoutSecrets(item, mode, depth + 1))
  const out: Record<string, unknown> = {}
  for (const [key, item] of Object.entries(value)) {
    if (!isSecretName(key)) out[key] = withoutSecrets(item, mode, depth + 1)
    else if (mode === 'mask') out[key] = '[redacted]'
  }
  return out
}
