import type { ActionName } from '../../kernel'
import type { AfterPayload, BeforeHookResult, BeforePayload } from './hook-catalogue'

type CamelCase<S extends string> = S extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<CamelCase<Tail>>}` : S

/**
 * Every standard hook a plugin may implement, one optional method per event of every declared
 * action: `before<Action>` (may return `{ cancel: true, reason }` to stop it) and
 * `after<Action>` (always called, with `result.status` success, error or cancelled). Hooks may be
 * async and are awaited under `plugins.hook_timeout_ms`.
 */
export type PluginHooks = {
  [A in ActionName as `before${Capitalize<CamelCase<A>>}`]?: (
    payload: BeforePayload<A>,
  ) => BeforeHookResult | Promise<BeforeHookResult>
} & {
  [A in ActionName as `after${Capitalize<CamelCase<A>>}`]?: (payload: AfterPayload<A>) => unknown
} & {
  /** The seed's name for `beforeServerStart`, still honoured (decisions.md 4.2). */
  beforeStartServer?: (payload: BeforePayload<'server_start'>) => BeforeHookResult | Promise<BeforeHookResult>
}
