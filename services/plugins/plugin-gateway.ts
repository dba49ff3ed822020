import {
  type ActionResult,
  type BusScope,
  isSecretName,
  reasonOf,
  runInContext,
  SmError,
  withoutSecrets,
} from '../../kernel'
import { listenForCustomEvent, sendCustomEvent } from './custom-events'
import type { CallOptions } from './guarded-call'
import type { ApiDescription, PluginApi } from './plugin-api'

const APIS: readonly ApiDescription[] = [
  {
    name: 'getGlobalSetting',
    parameters: [{ name: 'key', type: 'string' }],
    description: "A global setting's value (web.port, custom.<key>), or undefined when it has none.",
  },
  {
    name: 'getPluginStatuses',
    parameters: [],
    description: 'Every known plugin with its enabled flag, version, author, description and state.',
  },
  { name: 'listAvailableApis', parameters: [], description: 'The operations of this API, with their parameters.' },
  {
    name: 'listenForEvent',
    parameters: [
      { name: 'name', type: 'string' },
      { name: 'listener', type: '(payload, meta) => unknown' },
    ],
    description:
      'Listens for a custom event <namespace>:<event> until the plugin unloads; resolves to a function that stops listening.',
  },
  {
    name: 'sendEvent',
    parameters: [
      { name: 'name', type: 'string' },
      { name: 'payload', type: 'object', default: '{}' },
    ],
    description: 'Sends a custom event to every listener and resolves to the delivery report.',
  },
  {
    name: 'setCustomGlobalSetting',
    parameters: [
      { name: 'key', type: 'string' },
      { name: 'value', type: 'JSON' },
    ],
    description: 'Stores a value under custom.<key>; returns the action result.',
  },
]

/**
 * Builds `this.api` for one plugin. Every call runs as `plugin:<name>`, so what it causes is
 * attributed to the plugin in the event log, and goes through the bus like any other caller's.
 */
export function createPluginApi(plugin: string, scope: BusScope, options: CallOptions): PluginApi {
  const actor = `plugin:${plugin}`
  const asPlugin = <T>(fn: () => Promise<T>) => runInContext({ actor }, fn)

  return Object.freeze({
    sendEvent: (name: string, payload?: Record<string, unknown>) =>
      asPlugin(() => sendCustomEvent(scope, name, payload)),

    listenForEvent: async (name: string, listener: Parameters<PluginApi['listenForEvent']>[1]) => {
      const subscription = listenForCustomEvent(scope, name, listener, options)
      return () => subscription.dispose()
    },

    getGlobalSetting: (key: string) =>
      asPlugin(async () => {
        if (typeof key === 'string' && key.split('.').some(isSecretName)) {
          throw new SmError('SM_ERR_PLUGIN_FORBIDDEN', { plugin, what: `read the secret setting '${key}'` })
        }
        const reply = await scope.request('settings:get', { key })
        return reply.found ? withoutSecrets(reply.value, 'drop') : undefined
      }),

    setCustomGlobalSetting: (key: string, value: unknown) =>
      asPlugin(async (): Promise<ActionResult> => {
        const name = typeof key === 'string' ? key.trim() : ''
        try {
          await scope.request('settings:set', { key: `custom.${name}`, value })
          return { status: 'success', message: `Global setting 'custom.${name}' updated.` }
        } catch (error) {
          return { status: 'error', message: reasonOf(error), code: (error as SmError).code }
        }
      }),

    getPluginStatuses: () =>
      asPlugin(async () => {
        const records = await scope.request('plugins:list', {})
        return Object.fromEntries(
          records.map((r) => [
            r.name,
            { enabled: r.enabled, version: r.version, author: r.author, description: r.description, state: r.state },
          ]),
        )
      }),

    listAvailableApis: async () => APIS.map((api) => ({ ...api, parameters: api.parameters.map((p) => ({ ...p })) })),
  })
}
