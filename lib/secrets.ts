import { isMarkedSecret } from '../kernel/setting-catalogue'
import { setOwnProperty } from './own-property'

// A name is tested word by word: `rconPw`, `rcon_pw`, `rcon-pw` and `rcon.pw` all end in the word `pw`.
const SECRET_NAME =
  /passw(or)?d|passphrase|passcode|(^|_)(pass|pw|pwd|pin|otp|totp|dsn)(_|$)|secret|token|jwt|(api|private|access|signing|encryption|ssh|master|license)_?key|authori[sz]ation|cookie|credential|session_?(id|key)|webhook|connection_?string/i

// A name that ends in what it says about a secret (`password_min_length`, `token_ttl_s`,
// `pin_required`) holds a number, a duration or a flag, never the secret itself.
const ABOUT_A_SECRET =
  /_((min|max)_)?(length|len|chars|size|count|ttl|lifetime|age|expiry|expiration|expires(_in)?|timeout|attempts|retries|policy|rules?|strength|complexity|required|enabled|min|max)(_(s|ms|secs?|seconds|mins?|minutes|h|hours|d|days))?$/i

/**
 * Whether a field or setting name looks like it holds a secret: one rule for logs, events,
 * hooks, the API and the CLI; a name that ends in what it says about a secret (a length, a
 * lifetime, a rule, a flag: `password_min_length`) is not one. The fallback for what nobody
 * declared (`defineSettings` with `secret: true`, a plugin's `static secretSettings`,
 * `setting set --secret`).
 */
export function isSecretName(name: string): boolean {
  let known = names.get(name)
  if (known === undefined) {
    const words = name.replace(/([a-z0-9])(?=[A-Z])/g, '$1_').replace(/[-.\s]/g, '_')
    known = SECRET_NAME.test(words) && !ABOUT_A_SECRET.test(words)
    // Field names repeat (every payload of a type has the same ones); a bounded memo keeps the
    // per-emit redaction of hook payloads to a map lookup per field.
    if (names.size >= 4096) names.clear()
    names.set(name, known)
  }
  return known
}

const names = new Map<string, boolean>()

/**
 * Whether a setting key holds a secret: it or a key above it was declared or marked secret (the
 * kernel's setting catalogue keeps which), or one of its parts has a secret-looking name
 * (`custom.rcon_pw`, `custom.db.password`).
 */
export function isSecretKey(key: string): boolean {
  return isMarkedSecret(key) || key.split('.').some(isSecretName)
}

export const REDACTED = '[redacted]'
const MAX_DEPTH = 200
type Mode = 'mask' | 'drop'

/**
 * A copy of `value` with every secret replaced (`mask`) or dropped (`drop`), at any depth; the
 * same rule everywhere a payload leaves trusted code (plugin hooks, logs, the event log's
 * output, the API, the CLI). Hidden are: secret-named fields; the `value` and `previous` of a
 * setting change (`{ key, value, previous }`) whose key is secret, and inside them whatever
 * sits at a secret key (`custom.rcon` = `{ pw }`); the value of a `{ name: 'API_TOKEN', value }`
 * pair; and the password of a URL (`https://user:[redacted]@host`) or a secret-named query
 * parameter in any text. Returns `value` itself when there is nothing to hide. Cycles and
 * values nested deeper than 200 levels are shown as placeholders, never unfiltered.
 */
export function withoutSecrets(value: unknown, mode: Mode = 'mask'): unknown {
  return redact(value, mode, 0, new Set(), undefined)
}

/**
 * The value of the setting at `key` (`''`: the whole settings tree) as people may see it: the
 * whole value when the key is secret, else each secret key inside it hidden (`withoutSecrets`).
 */
export function withoutSecretSettings(value: unknown, key: string, mode: Mode = 'mask'): unknown {
  if (key !== '' && isSecretKey(key)) return REDACTED
  return redact(value, mode, 0, new Set(), key)
}

/** `at`: the setting key `value` sits at, when it is (part of) a setting's value; '' is the root. */
function redact(value: unknown, mode: Mode, depth: number, path: Set<object>, at: string | undefined): unknown {
  if (typeof value === 'string') return withoutUrlSecrets(value)
  if (value === null || typeof value !== 'object') return value
  if (value instanceof Error)
    return { name: value.name, message: withoutUrlSecrets(value.message), code: (value as { code?: unknown }).code }
  if (path.has(value)) return '[cycle]'
  if (depth >= MAX_DEPTH) return '[too deep to show]'
  path.add(value)
  try {
    if (Array.isArray(value)) {
      let changed = false
      const out = value.map((item) => {
        const safe = redact(item, mode, depth + 1, path, undefined)
        changed ||= safe !== item
        return safe
      })
      return changed ? out : value
    }
    const record = value as Record<string, unknown>
    // A setting change ({key, value, previous}) or a named value ({name: 'API_TOKEN', value}).
    const setting = at === undefined && typeof record.key === 'string' ? record.key : undefined
    const named = setting === undefined && typeof record.name === 'string' && isSecretName(record.name)
    let changed = false
    const out: Record<string, unknown> = {}
    for (const [field, item] of Object.entries(record)) {
      let childAt: string | undefined
      let hidden: boolean
      if (at !== undefined) {
        childAt = join(at, field)
        hidden = isSecretKey(childAt)
      } else if (setting !== undefined && (field === 'value' || field === 'previous')) {
        childAt = setting
        hidden = isSecretKey(setting)
      } else hidden = isSecretName(field) || (named && (field === 'value' || field === 'previous'))
      if (hidden) {
        changed = true
        if (mode === 'mask') setOwnProperty(out, field, REDACTED)
        continue
      }
      const safe = redact(item, mode, depth + 1, path, childAt)
      changed ||= safe !== item
      setOwnProperty(out, field, safe)
    }
    return changed ? out : value
  } finally {
    path.delete(value)
  }
}

function join(at: string, field: string): string {
  return at === '' ? field : `${at}.${field}`
}

const URL_PASSWORD = /(\b[a-z][a-z0-9+.-]*:\/\/[^\s/?#@:]*:)([^\s/?#@]+)@/gi
const QUERY_PARAMETER = /([?&;])([^=&#\s]+)=([^&#\s]*)/g

/** Text with the passwords of URLs in it (`scheme://user:pw@`) and secret-named query parameters hidden. */
export function withoutUrlSecrets(text: string): string {
  if (!text.includes('://')) return text
  return text
    .replace(URL_PASSWORD, `$1${REDACTED}@`)
    .replace(QUERY_PARAMETER, (whole, sep: string, name: string) =>
      isSecretName(name) || /^(key|sig|signature)$/i.test(name) ? `${sep}${name}=${REDACTED}` : whole,
    )
}
