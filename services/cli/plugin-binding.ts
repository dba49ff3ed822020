import type { CliSession } from './session'

/**
 * What a plugin command class runs with: its plugin's name, `this.api` (the plugin SDK's
 * PluginApi, which the SDK's door cli.ts names), and the session behind it.
 */
export interface PluginBinding {
  readonly plugin: string
  readonly api: unknown
  readonly session: CliSession
}

const bindings = new WeakMap<object, PluginBinding>()

export function bindCommand(cls: object, binding: PluginBinding): void {
  bindings.set(cls, binding)
}

/** The binding of a command class or of one it extends. */
export function bindingOf(cls: object | null): PluginBinding | undefined {
  for (let at = cls; at && at !== Function.prototype; at = Object.getPrototypeOf(at)) {
    const found = bindings.get(at)
    if (found) return found
  }
  return undefined
}
