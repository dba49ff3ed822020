import type { Service } from '../../kernel'
import type { NatsConfig } from '../../lib/nats-link'
import type { NatsBridge } from './nats-server'

/**
 * The bridge's NATS transport as a service of the manager: with nats.url set (or `start --nats`),
 * the bus is served on the broker too (docs/architecture.md, "The bus over NATS"); without it,
 * nothing changes, the NATS client is not even loaded, and `nats:status` says it is not
 * configured. A setting that cannot be used stops the boot (SM_ERR_NATS_CONFIG); a broker that
 * is not there does not.
 */
export function natsService(options: { url?: string } = {}): Service {
  let link: NatsBridge | undefined
  return {
    name: 'nats',
    dependsOn: ['settings'],
    after: ['bridge'],
    async start({ bus, logger }) {
      const setting = async (key: string) => String((await bus.request('settings:get', { key })).value ?? '')
      bus.handle('nats:status', () => link?.status ?? { configured: false, connected: false })
      bus.handle('nats:hosts', () => link?.hosts ?? [])
      const url = options.url ?? (await setting('nats.url'))
      if (url === '') return
      const config: NatsConfig = {
        url,
        user: await setting('nats.user'),
        password: await setting('nats.password'),
        credentials: await setting('nats.credentials'),
        tlsCa: await setting('nats.tls_ca'),
        prefix: (await setting('nats.prefix')) || 'sm',
      }
      // Loaded only here: a manager without a broker never loads the NATS client (25 ms).
      const { natsOptions } = require('../../lib/nats-link') as typeof import('../../lib/nats-link')
      const { NatsBridge } = require('./nats-server') as typeof import('./nats-server')
      natsOptions(config, 'check') // a setting that cannot be used fails the start, loudly
      link = new NatsBridge(bus, logger, config)
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
