import type { Identifier } from '../../kernel'
import { ACTION_NAMES, IDENTITY_KEYS } from './hook-catalogue'

// `before_server_start` and `after_server_start` → ['serverName'], resolved once.
const KEYS_BY_EVENT = new Map<string, readonly string[]>(
  ACTION_NAMES.flatMap((action) => [
    [`before_${action}`, IDENTITY_KEYS[action]],
    [`after_${action}`, IDENTITY_KEYS[action]],
  ]),
)

/**
 * The identity of one standard event occurrence for the loop guard: the event name plus its
 * identifying fields (`before_server_start|s1`). Any other event (custom ones) is guarded by
 * name. Runs on every guarded emit, so it only concatenates.
 */
export const identifyEvent: Identifier = (event, payload) => {
  const keys = KEYS_BY_EVENT.get(event)
  if (!keys) return event
  const fields = payload as Record<string, unknown> | null
  let identity = event
  for (const key of keys) identity += `|${String(fields?.[key] ?? '<unspecified>')}`
  return identity
}
