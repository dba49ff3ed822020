import type { Service } from '../../kernel'
import { natsErrors } from '../../lib/nats-errors'
import type { NatsConfig } from '../../lib/nats-link'
import { HOSTS, type HostOptions, natsCommands, natsEvents } from './contract'
import type { NatsHost } from './nats-host'
import type { NatsBridge } from './nats-server'
import { bridgeSettings } from './settings'

/** What the NATS service declares: the `nats:` commands and events, its codes and the nats.* settings. */
export const natsDeclarations: readonly object[] = [natsCommands, natsEvents, natsErrors, bridgeSettings]

/**
 * The bridge's NATS transport as a service: with nats.url set (or `start --nats`), the manager
 * serves its bus on the broker and keeps the host agents (nats-server.ts); with `host`, this
 * process is a host agent joined to a manager (nats-host.ts). Without either, nothing changes,
 * the NATS client is not even loaded, and `nats:status` says it is not configured. A setting that
 * cannot be used stops the boot (SM_ERR_NATS_CONFIG); a broker that is not there does not.
 */
export function natsService(options: { url?: string; host?: HostOptions } = {}): Service {
  let link: NatsBridge | NatsHost | undefined
  return {
    name: 'nats',
    declares: natsDeclarations,
    dependsOn: ['settings'],
    after: ['bridge'],
    // Its hosts' live events and hooks reach this bus's listeners through it.
    relays: true,
    async start({ bus, config: kernel, logger, registry }) {
      const setting = async (key: string) => String((await bus.request('settings:get', { key })).value ?? '')
      bus.handle('nats:status', () => link?.status ?? { configured: false, connected: false })
      bus.handle('nats:hosts', () => (link && 'hosts' in link ? link.hosts : []))
      const given = options.host?.config ?? {}
      const url = given.url ?? options.url ?? (await setting('nats.url'))
      if (url === '') return
      const config: NatsConfig = {
        url,
        user: given.user ?? (await setting('nats.user')),
        password: given.password ?? (await setting('nats.password')),
        credentials: given.credentials ?? (await setting('nats.creds_file')),
        tlsCa: given.tlsCa ?? (await setting('nats.tls_ca')),
        prefix: given.prefix ?? ((await setting('nats.prefix')) || 'sm'),
      }
      // Loaded only here: a manager without a broker never loads the NATS client (25 ms). A setting
      // that cannot be used fails the start, loudly: the first attempt (begin) rejects with it.
      if (options.host) {
        const { NatsHost } = require('./nats-host') as typeof import('./nats-host')
        link = new NatsHost(bus, logger, config, { ...options.host, dataDir: kernel.dataDir })
      } else {
        const { NatsBridge } = require('./nats-server') as typeof import('./nats-server')
        const bridge = new NatsBridge(bus, logger, config)
        registry.provide(HOSTS, bridge)
        link = bridge
      }
      await link.begin()
    },
    ready() {
      link?.open()
    },
    async stop() {
      await link?.close()
      link = undefined
    },
  }
}
