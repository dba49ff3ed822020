import type { ActionSummary, Identifier } from '../../kernel'
import { hookEvents } from './hook-catalogue'

/**
 * The identity of one standard event occurrence for the loop guard: the event name plus its
 * identifying fields (`before_setting_update|custom.x`). Any other event (custom ones) is
 * guarded by name. Built from the kernel's declared actions; runs on every guarded emit,
 * so it only concatenates.
 */
export function eventIdentifier(actions: readonly ActionSummary[]): Identifier {
  const keysByEvent = new Map(hookEvents(actions).map((hook) => [hook.event, hook.identity]))
  return (event, payload) => {
    const keys = keysByEvent.get(event)
    if (!keys) return event
    const fields = payload as Record<string, unknown> | null
    let identity = event
    for (const key of keys) identity += `|${String(fields?.[key] ?? '<unspecified>')}`
    return identity
  }
}
