import { deepFreeze } from '../kernel/deep-freeze'
import { setOwnProperty } from './own-property'
import { isSecretName, REDACTED, withoutSecrets, withoutUrlSecrets } from './secrets'

/**
 * A copy of `value` (a server record, a list of them, a task's result holding one) as a reader
 * below admin, or any list, may see it (issue 32): every value of an `env` (`RCON_PASSWORD`, a
 * token: a game's environment is where its secrets go, whatever their names) shown as
 * `[redacted]`, its names kept; in `args`, the value of a secret-looking flag (`--password=…`,
 * `-Drcon.password=…`, `--token …`) and a URL's password hidden; and whatever `withoutSecrets`
 * hides. An admin's read of one server is the only answer that holds them.
 */
export function withoutServerSecrets<T>(value: T): T {
  return strip(withoutSecrets(value), 0) as T
}

/** What withoutServerSecretsEach made of each frozen item it was given. */
const stripped = new WeakMap<object, unknown>()

/**
 * withoutServerSecrets of each item of a list; a frozen item's is kept while the item lives (a
 * list from memory hands out the same frozen entries while nothing changed: servers/server-list.ts),
 * and is frozen itself, since every reader of that item shares it.
 */
export function withoutServerSecretsEach<T extends object>(items: readonly T[]): T[] {
  return items.map((item) => {
    if (!Object.isFrozen(item)) return withoutServerSecrets(item)
    let shown = stripped.get(item) as T | undefined
    if (!shown) {
      shown = deepFreeze(withoutServerSecrets(item))
      stripped.set(item, shown)
    }
    return shown
  })
}

const MAX_DEPTH = 50

function strip(value: unknown, depth: number): unknown {
  if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) return value
  if (Array.isArray(value)) return value.map((item) => strip(item, depth + 1))
  const out: Record<string, unknown> = {}
  for (const [field, item] of Object.entries(value)) {
    let shown: unknown
    if (field === 'env' && isRecord(item)) shown = Object.fromEntries(Object.keys(item).map((name) => [name, REDACTED]))
    else if (field === 'args' && Array.isArray(item) && item.every((arg) => typeof arg === 'string'))
      shown = withoutSecretArgs(item)
    else shown = strip(item, depth + 1)
    setOwnProperty(out, field, shown)
  }
  return out
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

// `--password=x`, `-Dpassword=x`, `PASSWORD=x`: a name, `=`, a value.
const ASSIGNMENT = /^(-{0,2}[^=\s]+)=(.*)$/s
// `--password`, `-token`: a flag whose value is the next argument.
const FLAG = /^-{1,2}([^=\s]+)$/

/** Program arguments with the values of secret-looking flags (and URL passwords) hidden. */
export function withoutSecretArgs(args: readonly string[]): string[] {
  const out: string[] = []
  let hideNext = false
  for (const arg of args) {
    if (hideNext && !arg.startsWith('-')) {
      out.push(REDACTED)
      hideNext = false
      continue
    }
    hideNext = false
    const assigned = ASSIGNMENT.exec(arg)
    if (assigned && isSecretName(nameOf(assigned[1] as string))) {
      out.push(`${assigned[1]}=${REDACTED}`)
      continue
    }
    const flag = FLAG.exec(arg)
    if (flag && isSecretName(nameOf(flag[1] as string))) hideNext = true
    out.push(withoutUrlSecrets(arg))
  }
  return out
}

/** A flag's name as isSecretName reads it: its dashes and a Java `-D` dropped (`-Drcon.password` → `rcon.password`). */
function nameOf(flag: string): string {
  return flag.replace(/^-+/, '').replace(/^D(?=[a-z])/, '')
}
