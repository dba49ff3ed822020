import { join } from 'node:path'
import type { Disposable } from '../../kernel/disposable'
import type { Logger } from '../../kernel/logger'
import { CLI_API_COMMANDS } from './api-commands'
import type { CliRuntimeOptions } from './cli-runtime'
import type { CliContribution, CliHostSession, HostedPlugin } from './contract'
import { assertCustomEventName, channelOf, senderOf } from './event-names'
import { guardedListener } from './guarded-call'
import { createPluginGateway, declaredSecretKeys, type GatewayLink } from './plugin-gateway'
import { PluginImporter } from './plugin-module'

/**
 * Imports plugins in a CLI process and makes their instances, each with a `this.api` that acts
 * as `plugin:<name>` through the CLI's session. Nothing connects until the plugin calls its API.
 */
export function pluginHost(options: CliRuntimeOptions) {
  // One importer (one jiti) per data directory: the menu may host several plugins in one session.
  let importer: { dataDir: string; importer: PluginImporter } | undefined
  const importerFor = (dataDir: string): PluginImporter => {
    if (importer?.dataDir !== dataDir)
      importer = { dataDir, importer: new PluginImporter(options.sdk(), join(dataDir, 'cache', 'jiti')) }
    return importer.importer
  }
  return async (entry: CliContribution, session: CliHostSession): Promise<HostedPlugin> => {
    const { plugin: name, root, hash } = entry
    const definition = await importerFor(session.dataDir).import({
      name,
      source: 'user',
      entry: entry.entry,
      root,
      hash,
    })
    const logger = options.logger(session.dataDir).child(`plugin:${name}`)
    const ownSecrets = declaredSecretKeys(name, definition.secretSettings)
    const { api } = createPluginGateway(name, sessionLink(session, name, logger), {
      logger,
      ownSecrets,
      commands: CLI_API_COMMANDS,
    })
    const instance = new definition.cls({ name, version: definition.version, logger, api })
    return { name, instance, api }
  }
}

/** The gateway's way to the manager from a CLI process: every call as `plugin:<name>`. */
function sessionLink(session: CliHostSession, plugin: string, logger: Logger): GatewayLink {
  const actor = `plugin:${plugin}`
  return {
    request: (name, payload) => session.request(name, payload, actor),
    send: (event, payload) => session.request('plugins:send_event', { event, payload }, actor),
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
        (payload, meta) => call(payload as Record<string, unknown>, { ...meta, seq: undefined }),
        actor,
        { timeoutMs: 0, guarded: true },
      )
    },
  }
}
