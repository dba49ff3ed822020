import type { ActionMap, ActionName, ActionResult, ActionSummary } from '../../kernel'

export type { ActionName } from '../../kernel'

/** The payload a `before_<x>` hook receives. */
export type BeforePayload<A extends ActionName> = ActionMap[A]
/** The payload an `after_<x>` hook receives. */
export type AfterPayload<A extends ActionName> = ActionMap[A] & { readonly result: ActionResult }

/** What a `before_*` hook may return: nothing to let the action go on, or a veto. */
// biome-ignore lint/suspicious/noConfusingVoidType: a hook that returns nothing is declared as returning void
export type BeforeHookResult = void | undefined | { readonly cancel: true; readonly reason?: string }

/** `after_server_start` → `afterServerStart`. */
export function hookMethodName(event: string): string {
  return event.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase())
}

/** One hookable event, from the action catalogue. */
export interface HookEvent {
  readonly event: string
  readonly method: string
  /** The payload fields that name one occurrence, for the loop guard. */
  readonly identity: readonly string[]
}

/**
 * Every `before_*`/`after_*` event of the declared actions (a kernel's catalogue, or the list a
 * plugin's thread was handed), with its hook method.
 */
export function hookEvents(actions: readonly ActionSummary[]): HookEvent[] {
  return actions.flatMap(({ name, declaration }) => {
    const hooks = ['before', 'after'].map((phase) => ({
      event: `${phase}_${name}`,
      method: hookMethodName(`${phase}_${name}`),
      identity: declaration.identity,
    }))
    const alias = declaration.beforeAlias
    return alias ? [...hooks, { event: `before_${name}`, method: alias, identity: declaration.identity }] : hooks
  })
}
