import { SmError } from '../../kernel'

const CUSTOM_EVENT = /^[A-Za-z0-9_.-]+:[A-Za-z0-9_.-]+$/

/**
 * Custom events travel on the bus under this prefix (`~custom:pingplugin:ping`), a channel no
 * core listener is on: a core name never starts with '~' and a custom name cannot contain one,
 * so a plugin or a trigger can never reach a core listener, whatever name it picks.
 */
const CHANNEL = '~custom:'

/** The bus name a custom event `<namespace>:<event>` is emitted and listened to under. */
export function channelOf(name: `${string}:${string}`): `${string}:${string}` {
  return `${CHANNEL}${name}`
}

/** Who is registered on the bus, by namespace (a `BusScope`). */
export interface NamespaceOwners {
  namespaceOwners(ns: string): string[]
}

/**
 * Checks a custom event name is `<namespace>:<event>` and, given the bus, that its namespace is
 * not the core's: one a service or the manager registers a listener or command in, or is named
 * after (`events:`, `settings:`, `manager:` ...). Derived from the registrations, so a service
 * added later reserves its namespace without a list to update.
 */
export function assertCustomEventName(name: unknown, bus?: NamespaceOwners): asserts name is `${string}:${string}` {
  if (typeof name !== 'string' || !CUSTOM_EVENT.test(name)) {
    throw new SmError('SM_ERR_PLUGIN_INVALID_EVENT_NAME', { event: String(name) })
  }
  if (!bus) return
  const namespace = name.slice(0, name.indexOf(':'))
  const core = bus.namespaceOwners(namespace).find((owner) => !owner.startsWith('plugin:'))
  if (core !== undefined) throw new SmError('SM_ERR_PLUGIN_RESERVED_EVENT', { event: name, namespace, owner: core })
}

/**
 * Who sent a custom event, from the actor of its causal chain: a plugin's name, else
 * `external_api_trigger` (the trigger endpoint, the CLI, an embedding program).
 */
export function senderOf(actor: string): string {
  return actor.startsWith('plugin:') ? actor.slice('plugin:'.length) : 'external_api_trigger'
}
