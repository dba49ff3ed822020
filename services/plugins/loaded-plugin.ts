import { type BusScope, type Logger, reasonOf, runInContext, SmError, timeBox } from '../../kernel'
import type { RunTask } from '../tasks/contract'
import type { CliContribution } from './contract'
import { contributionsOf, type ExtensionMethod, extensionOf } from './extension'
import type { CallOptions } from './guarded-call'
import { bindHooks } from './hook-binding'
import { hookWarnings } from './hook-methods'
import { isBoundedTimeout, runBounded } from './loop-watchdog'
import type { PluginBase } from './plugin-base'
import { createPluginGateway, declaredSecretKeys, type PluginGateway, scopeLink } from './plugin-gateway'
import type { PluginDefinition, PluginStatics } from './plugin-module'

export interface LoadOptions {
  /** The plugins service's scope; the plugin gets a child of it. */
  readonly scope: BusScope
  readonly logger: Logger
  readonly timeoutMs: number
  /** Told about every hook or listener failure of any plugin it loads. */
  readonly onHookFailure: (plugin: string, event: string, error: SmError) => void
  /** Told before any of the plugin's code runs (the loop watchdog). */
  readonly onEnter?: (plugin: string, hook: string) => void
  /** Runs a plugin's `this.api.runTask` work as a task of the manager. */
  readonly runTask: RunTask
}

type Lifecycle = 'onLoad' | 'onUnload' | 'onManagerStartup'

/** What a plugin adds to the CLI and the web UI, as its extension methods return them. */
export interface PluginContributions {
  /** Its commands, topics and menu items, described (the CLI imports no plugin to list them). */
  readonly cli: Pick<CliContribution, 'commands' | 'topics' | 'menuItems'>
  readonly web: {
    /** Routers (in the manager's thread) or their descriptions (in the plugin's own). */
    readonly routers: readonly unknown[]
    readonly templatePaths: readonly unknown[]
    readonly staticMounts: readonly unknown[]
  }
}

/** A loaded plugin, wherever its code runs: in the manager's thread (LoadedPlugin) or its own (ThreadedPlugin). */
export interface RunningPlugin {
  readonly name: string
  readonly definition: PluginStatics
  /** The standard events it hooks. */
  readonly hooks: readonly string[]
  /** Registrations (hooks and listeners) it holds on the bus. */
  readonly listeners: number
  /** Whether its code runs in a thread of its own. */
  readonly threaded: boolean
  contributions(): Promise<PluginContributions>
  /** Runs a lifecycle hook under the hook timeout; resolves to its failure, if any. */
  call(hook: Lifecycle): Promise<SmError | undefined>
  /** Calls `onUnload`, then releases everything the plugin registered and revokes its `this.api`. */
  unload(): Promise<SmError | undefined>
}

/**
 * A running plugin: its instance, its bus scope (every hook and listener it registered), its
 * logger and its `this.api`. Loading is all or nothing: a constructor or `onLoad` that throws or
 * hangs leaves nothing registered behind, and its `this.api` revoked.
 */
export class LoadedPlugin implements RunningPlugin {
  readonly threaded = false
  readonly name: string
  readonly definition: PluginDefinition
  readonly hooks: readonly string[]
  readonly #instance: PluginBase
  readonly #scope: BusScope
  readonly #gateway: PluginGateway
  readonly #logger: Logger
  readonly #timeoutMs: number
  readonly #enter: ((hook: string) => void) | undefined

  private constructor(
    definition: PluginDefinition,
    instance: PluginBase,
    parts: {
      scope: BusScope
      gateway: PluginGateway
      logger: Logger
      hooks: string[]
      timeoutMs: number
      enter: ((hook: string) => void) | undefined
    },
  ) {
    this.name = definition.candidate.name
    this.definition = definition
    this.#instance = instance
    this.#scope = parts.scope
    this.#gateway = parts.gateway
    this.#logger = parts.logger
    this.hooks = parts.hooks
    this.#timeoutMs = parts.timeoutMs
    this.#enter = parts.enter
  }

  static async load(definition: PluginDefinition, options: LoadOptions): Promise<LoadedPlugin> {
    const name = definition.candidate.name
    const scope = options.scope.child(`plugin:${name}`)
    const logger = options.logger.child(`plugin:${name}`)
    const callOptions: CallOptions = {
      plugin: name,
      logger,
      timeoutMs: options.timeoutMs,
      onFailure: (event, error) => options.onHookFailure(name, event, error),
      enter: options.onEnter && ((hook) => options.onEnter?.(name, hook)),
    }
    let ownSecrets: string[]
    try {
      ownSecrets = declaredSecretKeys(name, definition.secretSettings)
    } catch (error) {
      scope.dispose()
      throw error
    }
    const gateway = createPluginGateway(name, scopeLink(scope, callOptions, options.runTask), {
      ...callOptions,
      ownSecrets,
      commands: scope.catalogue.commands(),
    })
    const release = () => {
      gateway.revoke()
      scope.dispose()
    }
    try {
      // Before any of its code runs: what it stores there is hidden from its first write.
      await recordSecrets(name, ownSecrets, scope)
    } catch (error) {
      release()
      throw error
    }
    let instance: PluginBase
    try {
      instance = new definition.cls({ name, version: definition.version, logger, api: gateway.api })
    } catch (error) {
      release()
      throw new SmError(
        'SM_ERR_PLUGIN_LOAD_FAILED',
        { plugin: name, phase: 'its constructor', reason: reasonOf(error) },
        { cause: error },
      )
    }
    for (const warning of hookWarnings(instance, scope.catalogue.actions())) logger.warn(warning)
    const hooks = bindHooks(instance, scope, callOptions)
    const plugin = new LoadedPlugin(definition, instance, {
      scope,
      gateway,
      logger,
      hooks,
      timeoutMs: options.timeoutMs,
      enter: callOptions.enter,
    })
    const failure = await plugin.call('onLoad')
    if (failure) {
      release()
      throw failure
    }
    return plugin
  }

  /**
   * What an extension method (`getRouters`, `getTemplatePaths`, `getStaticMounts`, ...) returns:
   * `[]` when the plugin has none; a throw or a value that is not an array fails with the
   * plugin's name and the method.
   */
  extension(method: ExtensionMethod): unknown[] {
    return extensionOf(this.#instance, this.name, method, (fn) => {
      this.#enter?.(method)
      return runInContext({ actor: `plugin:${this.name}` }, fn)
    })
  }

  contributions(): Promise<PluginContributions> {
    return contributionsOf(this.name, this.definition.candidate, (method) => this.extension(method))
  }

  /** Registrations (hooks and listeners) the plugin holds on the bus. */
  get listeners(): number {
    return this.#scope.registrations
  }

  /**
   * Runs a lifecycle hook under the hook timeout (once: a hook that does not finish is cut off,
   * never retried); resolves to its failure, if any.
   */
  async call(hook: Lifecycle): Promise<SmError | undefined> {
    const method = this.#instance[hook]
    if (typeof method !== 'function') return undefined
    const ms = this.#timeoutMs
    const timedOut = () => new SmError('SM_ERR_PLUGIN_LOAD_TIMEOUT', { plugin: this.name, phase: hook, ms })
    try {
      // The synchronous part is cut off by runBounded (a while (true) {}), the rest by timeBox.
      const run = Promise.resolve().then(() => {
        this.#enter?.(hook)
        return runInContext({ actor: `plugin:${this.name}` }, () => runBounded(() => method.call(this.#instance), ms))
      })
      await timeBox(run, ms, timedOut)
      return undefined
    } catch (error) {
      const failure = isBoundedTimeout(error)
        ? timedOut()
        : error instanceof SmError && error.code === 'SM_ERR_PLUGIN_LOAD_TIMEOUT'
          ? error
          : new SmError(
              'SM_ERR_PLUGIN_LOAD_FAILED',
              { plugin: this.name, phase: hook, reason: reasonOf(error) },
              { cause: error },
            )
      this.#logger.error(failure.message, { code: failure.code })
      return failure
    }
  }

  /** Calls `onUnload`, then releases everything the plugin registered and revokes its `this.api`. */
  async unload(): Promise<SmError | undefined> {
    const failure = await this.call('onUnload')
    this.#gateway.revoke()
    this.#scope.dispose()
    return failure
  }
}

/** Records a plugin's declared secret keys as secret settings, for good (none: nothing to do). */
export async function recordSecrets(plugin: string, keys: readonly string[], scope: BusScope): Promise<void> {
  if (keys.length === 0 || !scope.hasHandler('settings:mark_secret')) return
  try {
    await runInContext({ actor: `plugin:${plugin}` }, () => scope.request('settings:mark_secret', { keys }))
  } catch (error) {
    throw new SmError(
      'SM_ERR_PLUGIN_LOAD_FAILED',
      { plugin, phase: 'its static secretSettings', reason: reasonOf(error) },
      { cause: error },
    )
  }
}
