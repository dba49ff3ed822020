import { SmError } from '../../../kernel'

/**
 * What a plugin's thread asks of `this.api`, answered in the manager: each operation of the
 * plugin's gateway (its own code: its argument checks, its rules on secrets and settings),
 * whatever the thread posted, and the functions an operation answered with (stop listening),
 * kept here by id for the thread to call back.
 */
export class ThreadApiAnswers {
  readonly #plugin: string
  readonly #api: object
  readonly #callbacks = new Map<number, (...args: unknown[]) => unknown>()
  #next = 1

  constructor(plugin: string, api: object) {
    this.#plugin = plugin
    this.#api = api
  }

  /** `this.api[name](...args)`, each argument first made by `fromThread`; a function answered comes back as `{ __fn: id }`. */
  async operation(
    name: string,
    args: readonly unknown[],
    fromThread: (arg: unknown, what: string) => unknown,
  ): Promise<unknown> {
    const operation: unknown = Reflect.get(this.#api, name)
    if (typeof operation !== 'function' || !Object.hasOwn(this.#api, name))
      throw new SmError('SM_ERR_PLUGIN_FORBIDDEN', { plugin: this.#plugin, what: `call this.api.${name}` })
    const what = typeof args[0] === 'string' ? args[0] : name
    const value: unknown = await operation(...args.map((arg) => fromThread(arg, what)))
    if (typeof value !== 'function') return value
    const id = this.#next++
    this.#callbacks.set(id, value as (...args: unknown[]) => unknown)
    return { __fn: id }
  }

  /** Calls back a function an operation answered the thread with. */
  callback(id: number, args: readonly unknown[]): unknown {
    const callback = this.#callbacks.get(id)
    if (!callback)
      throw new SmError('SM_ERR_PLUGIN_FORBIDDEN', {
        plugin: this.#plugin,
        what: 'call back a function it was not given',
      })
    return callback(...args)
  }

  /** Forgets the functions (the plugin ended). */
  clear(): void {
    this.#callbacks.clear()
  }
}
