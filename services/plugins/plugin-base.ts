import type Router from '@koa/router'
import type { Logger } from '../../kernel'
import type { PluginApi } from './plugin-api'
import type { PluginHooks } from './plugin-hooks'

/** What the manager hands a plugin's constructor. */
export interface PluginContext {
  readonly name: string
  readonly version: string
  readonly logger: Logger
  readonly api: PluginApi
}

type HookLike<K> = K extends `before${Capitalize<string>}` | `after${Capitalize<string>}` ? K : never
type KnownHook = keyof PluginHooks

/**
 * The compile-time check behind `class MyPlugin extends PluginBase<MyPlugin>`: a method named
 * like a hook (`before…`/`after…`) must be one, with the hook's payload type.
 */
export type CheckedPlugin<Self> = {
  [K in keyof Self as HookLike<K> extends never ? never : K extends KnownHook ? never : K]: `'${K &
    string}' is not a hook: see the hook reference in docs/plugins.md`
} & { [K in keyof Self & keyof PluginHooks]?: PluginHooks[K] }

/**
 * The base class of every plugin. Extend it, give it a `static version`, and export it as the
 * module's default export. Write `extends PluginBase<YourClass>` to have the compiler check
 * your hook names and payloads.
 *
 * ```ts
 * import { PluginBase } from 'server-manager'
 *
 * /** Greets everyone when it loads. *\/
 * export default class Greeter extends PluginBase<Greeter> {
 *   static version = '1.0.0'
 *   override async onLoad() {
 *     this.logger.info(`hello from ${this.name}`)
 *   }
 * }
 * ```
 */
// biome-ignore lint/suspicious/noExplicitAny: the unchecked default keeps `extends PluginBase` valid
// biome-ignore lint/correctness/noUnusedVariables: Self is used by the constraint (the compile-time hook check)
export abstract class PluginBase<Self extends CheckedPlugin<Self> = any> {
  /**
   * The `custom.*` keys this plugin stores secrets under (`['rcon_password', 'discord']`, the
   * `custom.` prefix optional): recorded as secret settings when it loads, before its own code
   * runs, and kept so for good. Their values (and everything under them) show as `[redacted]` in
   * the API, the CLI, `events`, hook payloads and logs; keys named like a secret (`password`,
   * `token`, `pw`, `pin`, `api_key`, `webhook`...) are hidden without it.
   */
  static secretSettings?: readonly string[]

  /** The plugin's name: its file or folder name. */
  readonly name: string
  readonly version: string
  /** A logger named `plugin:<name>`; use it instead of console. */
  readonly logger: Logger
  /** The gateway to the manager. */
  readonly api: PluginApi

  constructor(context: PluginContext) {
    this.name = context.name
    this.version = context.version
    this.logger = context.logger
    this.api = context.api
  }

  /** Called after the plugin is loaded: register custom-event listeners here. */
  onLoad?(): unknown
  /** Called before the plugin is unloaded (disable, reload, shutdown). */
  onUnload?(): unknown
  /** Called once when a long-running manager has started every service. */
  onManagerStartup?(): unknown
  /** Called after the specific hook for every standard `before_*`/`after_*` event. */
  onAnyEvent?(eventName: string, payload: unknown): unknown

  /**
   * Web routers (`Router` from 'server-manager/web'), mounted in the manager's web server while
   * the plugin is loaded. A route without a guard needs a signed-in user; see docs/plugins.md.
   */
  getRouters?(): readonly Router[]
  /** Folders of EJS templates for `ctx.render(view)` (absolute, or relative to the plugin's folder). */
  getTemplatePaths?(): readonly string[]
  /** Static folders as `[urlPath, directory, mountName]`; templates link to them with `urlFor(mountName, path)`. */
  getStaticMounts?(): readonly (readonly [string, string, string])[]
}

/** A plugin class as the loader sees it. */
export type PluginClass = (new (
  context: PluginContext,
) => PluginBase) & {
  readonly version?: unknown
  readonly author?: unknown
  readonly description?: unknown
  readonly requires?: unknown
  readonly engines?: unknown
  readonly enabledByDefault?: unknown
  readonly secretSettings?: unknown
}
