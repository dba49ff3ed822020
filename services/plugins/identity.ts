import type { Identifier } from '../../kernel'
import { type ActionName, IDENTITY_KEYS } from './hook-catalogue'

/**
 * The identity of one standard event occurrence for the loop guard: the event name plus its
 * identifying fields (`before_server_start|s1`). Any other event (custom ones) is guarded by
 * name.
 */
export const identifyEvent: Identifier = (event, payload) => {
  const action = event.replace(/^(before|after)_/, '') as ActionName
  const keys = action !== event ? IDENTITY_KEYS[action] : undefined
  if (!keys) return event
  const fields = payload as Record<string, unknown> | null
  return [event, ...keys.map((key) => String(fields?.[key] ?? '<unspecified>'))].join('|')
}
