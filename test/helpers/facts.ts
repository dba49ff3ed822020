import { BridgeClient } from '../../services/bridge/client'
import type { StoredEvent } from '../../services/events/contract'
import { cliInOk } from './cli-in-process'

/**
 * Runs `trigger` while following the running manager's bus, and resolves with the first `event`
 * whose payload `matches` accepts (the subscription is in place before `trigger` runs): a fact
 * the manager records on its own, such as a player's join, waited for without polling.
 */
export async function managerEvent<T = Record<string, unknown>>(
  dataDir: string,
  event: string,
  matches: (payload: T) => boolean,
  trigger: () => Promise<unknown>,
): Promise<T> {
  const client = await BridgeClient.connect(dataDir)
  if (!client) throw new Error('no manager')
  try {
    const seen = new Promise<T>((resolve) =>
      client.on(event, (payload) => {
        if (matches(payload as T)) resolve(payload as T)
      }),
    )
    await client.request('servers:list', {}, 'cli:test') // answered after the subscription: it is in place
    await trigger()
    return await seen
  } finally {
    client.close()
  }
}

/** The facts of `types` in the log (`events --type … --json`, in-process), oldest first. */
export async function factsOf(dataDir: string, types: string): Promise<StoredEvent[]> {
  return JSON.parse(await cliInOk(dataDir, ['events', '--type', types, '--limit', '1000', '--json']))
}

/** The next `event` the manager behind `client` emits that `matches`, seen over its socket. */
export function nextEvent(
  client: BridgeClient,
  event: string,
  matches: (payload: Record<string, unknown>) => boolean = () => true,
): Promise<Record<string, unknown>> {
  return new Promise((resolve) => {
    const subscription = client.on(event, (payload) => {
      if (!matches(payload as Record<string, unknown>)) return
      subscription.dispose()
      resolve(payload as Record<string, unknown>)
    })
  })
}
