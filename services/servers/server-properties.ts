import { closest } from '../../lib/closest'

/**
 * server.properties as lines, so a change rewrites only the values it touches and keeps every
 * comment, blank line and key order as the server (or its admin) wrote them.
 */
export class ServerProperties {
  readonly #lines: string[]
  readonly #eol: string

  constructor(text: string) {
    this.#eol = text.includes('\r\n') ? '\r\n' : '\n'
    this.#lines = text.split(/\r?\n/)
  }

  /**
   * Key → value, in file order (`key=value`; `#` and `!` start comments; no multi-line values).
   * A null-prototype object: the file's keys are its only keys (`constructor` is not one unless
   * the file has it), and a `__proto__` line is data.
   */
  entries(): Record<string, string> {
    const out: Record<string, string> = Object.create(null)
    for (const line of this.#lines) {
      const entry = parseLine(line)
      if (entry) out[entry.key] = entry.value
    }
    return out
  }

  /** The value of `key` in the file (its last line, as in `entries`), or undefined. */
  get(key: string): string | undefined {
    return this.entries()[key]
  }

  /** Sets `key` in place, or appends it when the file does not have it. */
  set(key: string, value: string): void {
    const index = this.#lines.findIndex((line) => parseLine(line)?.key === key)
    const line = `${key}=${value}`
    if (index >= 0) this.#lines[index] = line
    else {
      const end =
        this.#lines.length > 0 && this.#lines[this.#lines.length - 1] === ''
          ? this.#lines.length - 1
          : this.#lines.length
      this.#lines.splice(end, 0, line)
    }
  }

  toString(): string {
    return this.#lines.join(this.#eol)
  }
}

function parseLine(line: string): { key: string; value: string } | undefined {
  const trimmed = line.trim()
  if (trimmed === '' || trimmed.startsWith('#') || trimmed.startsWith('!')) return undefined
  const at = trimmed.indexOf('=')
  if (at <= 0) return undefined
  return { key: trimmed.slice(0, at).trim(), value: trimmed.slice(at + 1).trim() }
}

type Rule = (value: string) => string | undefined

const integer =
  (min: number, max: number): Rule =>
  (value) =>
    /^-?\d+$/.test(value) && Number(value) >= min && Number(value) <= max
      ? undefined
      : `it must be a whole number from ${min} to ${max}`
const oneOf =
  (...choices: string[]): Rule =>
  (value) =>
    choices.includes(value) ? undefined : `it must be one of ${choices.join(', ')}`
const bool = oneOf('true', 'false')

/**
 * Bedrock's documented keys with rules; other keys already in the file are taken as they are.
 * A Map, so a key named like an Object method (`valueOf`, `hasOwnProperty`) is just unknown.
 */
const BEDROCK_RULES: ReadonlyMap<string, Rule> = new Map(
  Object.entries({
    'server-name': (v) => (v.trim() === '' || v.includes(';') ? "it must be non-empty text without ';'" : undefined),
    gamemode: oneOf('survival', 'creative', 'adventure'),
    'force-gamemode': bool,
    difficulty: oneOf('peaceful', 'easy', 'normal', 'hard'),
    'allow-cheats': bool,
    'max-players': integer(1, 1000),
    'online-mode': bool,
    'allow-list': bool,
    'white-list': bool,
    'server-port': integer(1, 65_535),
    'server-portv6': integer(1, 65_535),
    'enable-lan-visibility': bool,
    'view-distance': integer(5, 96),
    'tick-distance': integer(4, 12),
    'player-idle-timeout': integer(0, 100_000),
    'max-threads': integer(0, 1024),
    'level-name': (v) =>
      v.trim() === '' || /[/\\]|^\.\.?$/.test(v)
        ? "it must be a folder name (not empty, no '/', '\\', '.' or '..')"
        : undefined,
    'level-seed': () => undefined,
    'default-player-permission-level': oneOf('visitor', 'member', 'operator'),
    'texturepack-required': bool,
    'content-log-file-enabled': bool,
    'compression-threshold': integer(0, 65_535),
    'server-authoritative-movement': oneOf('client-auth', 'server-auth', 'server-auth-with-rewind'),
    'correct-player-movement': bool,
    'server-authoritative-block-breaking': bool,
    'chat-restriction': oneOf('None', 'Dropped', 'Disabled'),
    'disable-player-interaction': bool,
    'emit-server-telemetry': bool,
  }),
)

/**
 * Why `value` cannot be stored at `key`, or undefined. A key the file does not have and no rule
 * knows is refused with the nearest known key: a typo must not add a setting nobody reads.
 */
export function propertyProblem(key: string, value: string, present: readonly string[]): string | undefined {
  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(key)) return "a key is letters, digits, '-', '_' and '.'"
  if (/[\r\n]/.test(value)) return 'a value is one line'
  const rule = BEDROCK_RULES.get(key)
  if (rule) return rule(value)
  if (present.includes(key)) return undefined
  const nearest = closest(key, [...present, ...BEDROCK_RULES.keys()])
  return `server.properties has no such key${nearest ? `; did you mean '${nearest}'?` : ''}`
}
