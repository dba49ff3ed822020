import { type Catalogue, SmError } from '../../kernel'

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

/** Whether a bus name is a custom event's (its channel's). */
export function isChannel(name: string): boolean {
  return name.startsWith(CHANNEL)
}

// The owners of a kernel's error catalogue (the kernel and its services), read at its first check.
const declaring = new WeakMap<Catalogue, ReadonlySet<string>>()

/** Who is registered on the bus, by namespace, and what its kernel declared (a `BusScope`). */
export interface NamespaceOwners {
  namespaceOwners(ns: string): string[]
  readonly catalogue: Catalogue
}

/**
 * Checks a custom event name is `<namespace>:<event>` and, given the bus, that its namespace is
 * not the core's: one a core owner (not a plugin) registers a listener or command in or is named
 * after (`events:`, `settings:`, `manager:` ...), or a service declares its error codes under
 * (`web`, `bridge`: reserved also in a process that does not run them). Derived from what the
 * services register and declare, so a service added later reserves its namespace without a
 * list to update.
 */
export function assertCustomEventName(name: unknown, bus?: NamespaceOwners): asserts name is `${string}:${string}` {
  if (typeof name !== 'string' || !CUSTOM_EVENT.test(name)) {
    throw new SmError('SM_ERR_PLUGIN_INVALID_EVENT_NAME', { event: String(name) })
  }
  if (!bus) return
  const namespace = name.slice(0, name.indexOf(':'))
  let owners = declaring.get(bus.catalogue)
  if (!owners) {
    owners = new Set(bus.catalogue.errors().map((entry) => entry.owner))
    declaring.set(bus.catalogue, owners)
  }
  const core = owners.has(namespace)
    ? namespace
    : bus.namespaceOwners(namespace).find((owner) => !owner.startsWith('plugin:'))
  if (core !== undefined) throw new SmError('SM_ERR_PLUGIN_RESERVED_EVENT', { event: name, namespace, owner: core })
}

/**
 * Who sent a custom event, from the actor of its causal chain: a plugin's name, else
 * `external_api_trigger` (the trigger endpoint, the CLI, an embedding program).
 */
export function senderOf(actor: string): string {
  return actor.startsWith('plugin:') ? actor.slice('plugin:'.length) : 'external_api_trigger'
}
