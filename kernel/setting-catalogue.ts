import { recordOnce, tagged } from './declaration'

/** What the composition root tells every setting's default about this manager. */
export interface SettingContext {
  readonly dataDir: string
}

/** Why a value is refused, or undefined when it is fine. */
export type SettingRule = (value: unknown) => string | undefined

export interface SettingSpec {
  /** The default; its JSON type is the setting's type. A function gets the data directory. */
  readonly default: unknown
  /** One line for docs/settings.md and `setting list`. */
  readonly summary: string
  /** A range or choice beyond "same type as the default". */
  readonly rule?: SettingRule
  /**
   * Its value is a secret (a password, a key, a URL with a token in it): shown as `[redacted]`
   * in every output (API, CLI, events, hooks, logs); `setting get <key> --reveal` shows it.
   */
  readonly secret?: boolean
}

export interface SettingEntry {
  /** Dot path, e.g. `events.retention_days`. */
  readonly key: string
  /** The service that declared it. */
  readonly owner: string
  readonly spec: SettingSpec
}

/**
 * Declares an owner's global settings (full dot paths), with defaults and rules; returns them for
 * the service's `declares`. Each service declares its own in its `settings.ts`; the settings
 * service validates and documents what its kernel has declared, and nothing else outside `custom.*`.
 */
export function defineSettings<T extends Readonly<Record<string, SettingSpec>>>(owner: string, specs: T): T {
  return tagged(specs, { kind: 'settings', owner })
}

/** One kernel's settings, as its services declared them. */
export class SettingCatalogue {
  readonly #entries = new Map<string, SettingEntry>()

  /** Records an owner's settings (a secret one is secret in every output of the process from now on). */
  add(owner: string, specs: Readonly<Record<string, SettingSpec>>): void {
    recordOnce(
      this.#entries,
      'setting',
      owner,
      specs,
      (key, spec: SettingSpec) => ({ key, owner, spec }),
      (known) => known.spec,
    )
    for (const [key, spec] of Object.entries(specs)) if (spec.secret) markSecretKey(key)
  }

  /** Every declared setting, in declaration order. */
  entries(): readonly SettingEntry[] {
    return [...this.#entries.values()]
  }
}

/** The default of a setting for this manager. */
export function defaultOf(spec: SettingSpec, context: SettingContext): unknown {
  return typeof spec.default === 'function' ? (spec.default as (c: SettingContext) => unknown)(context) : spec.default
}

/** A rule: a whole number from `min` to `max`. */
export const wholeNumber =
  (min: number, max: number): SettingRule =>
  (value) =>
    Number.isInteger(value) && (value as number) >= min && (value as number) <= max
      ? undefined
      : `it must be a whole number from ${min} to ${max}`

// Setting keys declared (to any kernel of this process) or marked secret. Secrecy only ever
// widens: a key once secret stays so (its past values are in the log), so a process-wide set is
// safe to share between kernels (over-hiding in another kernel of the same process is the worst case).
const secretKeys = new Set<string>()

/** Makes a setting key (and everything under it) secret in every output of this process. */
export function markSecretKey(key: string): void {
  secretKeys.add(key)
}

/**
 * Whether a setting key, or a key above it, was declared secret (`defineSettings` with
 * `secret: true`, to a kernel) or marked secret (`markSecretKey`). lib/secrets.ts adds the rule for names that
 * look secret.
 */
export function isMarkedSecret(key: string): boolean {
  if (secretKeys.size === 0) return false
  if (secretKeys.has(key)) return true
  for (let dot = key.indexOf('.'); dot !== -1; dot = key.indexOf('.', dot + 1))
    if (secretKeys.has(key.slice(0, dot))) return true
  return false
}
