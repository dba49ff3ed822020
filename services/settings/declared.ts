import { defaultOf, type SettingContext, type SettingEntry, type SettingSpec, SmError } from '../../kernel'
import { closest } from '../../lib/closest'
import { assignPath, getPath, type Tree } from './dot-path'

/**
 * The settings the services declared, as the settings service uses them: the defaults as one
 * tree, and each key's spec. A key is known when it is declared, is a section or group above
 * declared keys (`events`), or lies under `custom`.
 */
export class DeclaredSettings {
  readonly defaults: Tree = {}
  readonly #specs = new Map<string, SettingSpec>()
  readonly #groups = new Set<string>()

  /** `declared`: the kernel's catalogue of settings. */
  constructor(context: SettingContext, declared: readonly SettingEntry[]) {
    for (const { key, spec } of declared) {
      const segments = key.split('.')
      assignPath(this.defaults, segments, defaultOf(spec, context))
      this.#specs.set(key, spec)
      for (let n = 1; n < segments.length; n++) this.#groups.add(segments.slice(0, n).join('.'))
    }
    this.defaults.custom = {}
  }

  spec(key: string): SettingSpec | undefined {
    return this.#specs.get(key)
  }

  /** The default at a key (a value, a group's tree, or undefined under custom). */
  defaultAt(segments: readonly string[]): unknown {
    return getPath(this.defaults, segments)
  }

  /**
   * Refuses a key that is neither declared, a group of declared keys, nor under `custom`, with
   * the nearest known key as a hint. The same error for get, set and unset.
   */
  assertKnown(key: string, segments: readonly string[]): void {
    if (segments[0] === 'custom' || this.#specs.has(key) || this.#groups.has(key)) return
    const nearest = closest(key, [...this.#specs.keys(), ...this.#groups])
    throw new SmError('SM_ERR_SETTINGS_UNKNOWN_KEY', {
      key,
      hint: nearest ? ` Did you mean '${nearest}'?` : '',
    })
  }

  /** Whether `key` names a group (`events`) rather than one setting. */
  isGroup(key: string): boolean {
    return this.#groups.has(key)
  }

  /** Declared keys under a group (or the key itself). */
  keysUnder(key: string): string[] {
    return [...this.#specs.keys()].filter((k) => k === key || k.startsWith(`${key}.`))
  }
}
