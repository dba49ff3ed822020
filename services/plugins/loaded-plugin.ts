import { type Bus, BusScope, type Logger, reasonOf, runInContext, SmError, timeBox } from '../../kernel'
import type { CallOptions } from './guarded-call'
import { bindHooks } from './hook-binding'
import type { PluginBase } from './plugin-base'
import { createPluginApi } from './plugin-gateway'
import type { PluginDefinition } from './plugin-module'

export interface LoadOptions {
  readonly bus: Bus
  readonly logger: Logger
  readonly timeoutMs: number
  /** Told about every hook or listener failure of any plugin it loads. */
  readonly onHookFailure: (plugin: string, event: string, error: SmError) => void
}

type Lifecycle = 'onLoad' | 'onUnload' | 'onManagerStartup'

/**
 * A running plugin: its instance, its bus scope (every hook and listener it registered) and its
 * logger. Loading is all or nothing: a constructor or `onLoad` that throws or hangs leaves
 * nothing registered behind.
 */
export class LoadedPlugin {
  readonly name: string
  readonly definition: PluginDefinition
  readonly hooks: readonly string[]
  readonly #instance: PluginBase
  readonly #scope: BusScope
  readonly #logger: Logger
  readonly #timeoutMs: number

  private constructor(
    definition: PluginDefinition,
    instance: PluginBase,
    scope: BusScope,
    logger: Logger,
    hooks: string[],
    timeoutMs: number,
  ) {
    this.name = definition.candidate.name
    this.definition = definition
    this.#instance = instance
    this.#scope = scope
    this.#logger = logger
    this.hooks = hooks
    this.#timeoutMs = timeoutMs
  }

  static async load(definition: PluginDefinition, options: LoadOptions): Promise<LoadedPlugin> {
    const name = definition.candidate.name
    const scope = new BusScope(options.bus, `plugin:${name}`)
    const logger = options.logger.child(`plugin:${name}`)
    const callOptions: CallOptions = {
      plugin: name,
      logger,
      timeoutMs: options.timeoutMs,
      onFailure: (event, error) => options.onHookFailure(name, event, error),
    }
    let instance: PluginBase
    try {
      instance = new definition.cls({
        name,
        version: definition.version,
        logger,
        api: createPluginApi(name, scope, callOptions),
      })
    } catch (error) {
      scope.dispose()
      throw new SmError(
        'SM_ERR_PLUGIN_LOAD_FAILED',
        { plugin: name, phase: 'its constructor', reason: reasonOf(error) },
        { cause: error },
      )
    }
    const plugin = new LoadedPlugin(
      definition,
      instance,
      scope,
      logger,
      bindHooks(instance, scope, callOptions),
      options.timeoutMs,
    )
    const failure = await plugin.call('onLoad')
    if (failure) {
      scope.dispose()
      throw failure
    }
    return plugin
  }

  /** Registrations (hooks and listeners) the plugin holds on the bus. */
  get listeners(): number {
    return this.#scope.registrations
  }

  /** Runs a lifecycle hook under the hook timeout; resolves to its failure, if any. */
  async call(hook: Lifecycle): Promise<SmError | undefined> {
    const method = this.#instance[hook]
    if (typeof method !== 'function') return undefined
    const ms = this.#timeoutMs
    const fail = (reason: string, cause?: unknown) =>
      new SmError('SM_ERR_PLUGIN_LOAD_FAILED', { plugin: this.name, phase: hook, reason }, { cause })
    try {
      const run = Promise.resolve().then(() =>
        runInContext({ actor: `plugin:${this.name}` }, () => method.call(this.#instance)),
      )
      await timeBox(run, ms, () => fail(`it did not finish within ${ms} ms`))
      return undefined
    } catch (error) {
      const failure = error instanceof SmError ? error : fail(reasonOf(error), error)
      this.#logger.error(failure.message, { code: failure.code })
      return failure
    }
  }

  /** Calls `onUnload`, then releases everything the plugin registered. */
  async unload(): Promise<SmError | undefined> {
    const failure = await this.call('onUnload')
    this.#scope.dispose()
    return failure
  }
}
