import { join } from 'node:path'
import type { Disposable } from '../../kernel/disposable'
import type { Logger } from '../../kernel/logger'
import { createLogger, isLogLevel } from '../log/logger'
import type { CliContribution } from '../plugins/cli-contributions'
import { assertCustomEventName, channelOf, senderOf } from '../plugins/event-names'
import { guardedListener } from '../plugins/guarded-call'
import type { PluginApi } from '../plugins/plugin-api'
import type { PluginBase } from '../plugins/plugin-base'
import { createPluginGateway, declaredSecretKeys, type GatewayLink } from '../plugins/plugin-gateway'
import type { PluginImporter } from '../plugins/plugin-module'
import type { CliSession } from './session'

/** A plugin imported into a CLI process for its commands or menu items (never loaded: no onLoad, no hooks). */
export interface HostedPlugin {
  readonly name: string
  readonly instance: PluginBase
  readonly api: PluginApi
  readonly session: CliSession
}

/**
 * Imports one plugin in this CLI process and makes its instance, with a `this.api` that acts as
 * `plugin:<name>` through `session`: the running manager over the bridge, or an in-process one.
 * Nothing connects until the plugin calls its API.
 */
export async function hostPlugin(
  contribution: Pick<CliContribution, 'plugin' | 'root' | 'entry' | 'hash'>,
  session: CliSession,
): Promise<HostedPlugin> {
  const { plugin: name, root, entry, hash } = contribution
  const definition = await importerFor(session.dataDir).import({ name, source: 'user', entry, root, hash })
  const logger = cliLogger(session.dataDir).child(`plugin:${name}`)
  const link = sessionLink(session, name, logger)
  const ownSecrets = declaredSecretKeys(name, definition.cls.secretSettings)
  const { api } = createPluginGateway(name, link, { logger, ownSecrets })
  const instance = new definition.cls({ name, version: definition.version, logger, api })
  return { name, instance, api, session }
}

// One importer (one jiti) per process: the menu may host several plugins in one session.
let importer: { dataDir: string; importer: PluginImporter } | undefined
function importerFor(dataDir: string): PluginImporter {
  if (importer?.dataDir !== dataDir) {
    const { PluginImporter } = require('../plugins/plugin-module') as typeof import('../plugins/plugin-module')
    const sdk = { sdk: require('../../index'), web: () => require('../../web'), cli: () => require('../../cli') }
    importer = { dataDir, importer: new PluginImporter(sdk, join(dataDir, 'cache', 'jiti')) }
  }
  return importer.importer
}

let rootLogger: Logger | undefined
function cliLogger(dataDir: string): Logger {
  const level = process.env.SM_LOG_LEVEL
  rootLogger ??= createLogger({
    file: join(dataDir, 'logs', 'server-manager.log'),
    consoleLevel: isLogLevel(level) ? level : 'warn',
  })
  return rootLogger
}

/** The gateway's way to the manager from a CLI process: every call as `plugin:<name>`. */
function sessionLink(session: CliSession, plugin: string, logger: Logger): GatewayLink {
  const actor = `plugin:${plugin}`
  return {
    request: (name, payload) => session.request(name, payload, actor) as never,
    send: (event, payload) => session.request('plugins:send_event', { event, payload }, actor) as never,
    runTask: (name, fn) => session.runTask(name, fn),
    async listen(event, listener): Promise<Disposable> {
      assertCustomEventName(event)
      if (typeof listener !== 'function') throw new TypeError(`the listener for '${event}' is not a function`)
      const call = guardedListener<Record<string, unknown>>(
        event,
        { plugin, logger, timeoutMs: 60_000, onFailure: () => {} },
        (payload, meta) => listener(payload, { event, sender: senderOf(meta.actor) }),
      )
      // On the custom-event channel, where the manager sends them (never a core event).
      return session.subscribe(
        channelOf(event),
        (payload, meta) => call(payload as Record<string, unknown>, meta as never),
        actor,
        { timeoutMs: 0, guarded: true },
      )
    },
  }
}
