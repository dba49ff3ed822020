import { SmError } from '../../kernel'

const CUSTOM_EVENT = /^[A-Za-z0-9_.-]+:[A-Za-z0-9_.-]+$/

/** Checks a custom event name is `<namespace>:<event>`. */
export function assertCustomEventName(name: unknown): asserts name is `${string}:${string}` {
  if (typeof name !== 'string' || !CUSTOM_EVENT.test(name)) {
    throw new SmError('SM_ERR_PLUGIN_INVALID_EVENT_NAME', { event: String(name) })
  }
}

/**
 * Who sent a custom event, from the actor of its causal chain: a plugin's name, else
 * `external_api_trigger` (the trigger endpoint, the CLI, an embedding program).
 */
export function senderOf(actor: string): string {
  return actor.startsWith('plugin:') ? actor.slice('plugin:'.length) : 'external_api_trigger'
}
