import type { Config } from '@oclif/core/config'
import type { CommandName, CommandPayload } from '../../kernel/maps'
import type { DeliveryReport, PluginRecord, ReloadReport } from '../plugins/contract'
import { CliSession } from './session'

/** A question for `ctx.prompt`: enquirer's prompt options without `name` (input, password, confirm, select, number, ...). */
export interface PromptQuestion {
  readonly type?: 'input' | 'password' | 'confirm' | 'select' | 'number' | 'list' | 'toggle' | (string & {})
  readonly message: string
  readonly initial?: unknown
  readonly choices?: readonly (string | { name: string; message?: string; value?: unknown; hint?: string })[]
  /** `true` to accept, or a message saying what is wrong (shown under the prompt). */
  readonly validate?: (value: string) => boolean | string | Promise<boolean | string>
  readonly [option: string]: unknown
}

/** The plugin manager as a menu handler reaches it (`ctx.obj.pluginManager`). */
export interface PluginManagerApi {
  list(): Promise<PluginRecord[]>
  info(name: string): Promise<PluginRecord & { hooks: string[]; listeners: number }>
  setEnabled(name: string, enabled: boolean): Promise<unknown>
  reload(): Promise<ReloadReport>
  /** Triggers a custom event as an external system would (sender `external_api_trigger`). */
  triggerEvent(event: string, payload?: Record<string, unknown>): Promise<DeliveryReport>
}

/**
 * What a menu item's handler gets (the original's click context). `Api` is the plugin's `this.api`
 * (the plugin SDK's PluginApi, which the SDK's door cli.ts fills in).
 */
export interface MenuContext<Api = unknown> {
  /** The plugin that supplied the item. */
  readonly plugin: string
  readonly obj: {
    /** The manager's operations (the plugin's `this.api`: servers, backups, settings, events). */
    readonly bsm: Api
    readonly pluginManager: PluginManagerApi
  }
  /** Runs another command, as typed after `server-manager` (`ctx.invoke('server list')`, `ctx.invoke('greet:hello', ['--name', 'x'])`). */
  invoke(command: string, argv?: readonly string[]): Promise<unknown>
  /** Asks one question; resolves to the answer, or `undefined` when the user cancels (Esc, Ctrl+C). */
  prompt<T = string>(question: string | PromptQuestion): Promise<T | undefined>
  /** Prints a line. */
  log(message: string): void
}

/** An item of the interactive menu, from a plugin's `getCliMenuItems()`. */
export interface MenuItem<Api = unknown> {
  readonly name: string
  readonly handler: (ctx: MenuContext<Api>) => unknown
}

/** Asks one question with enquirer; `undefined` when cancelled. */
export async function ask<T>(question: string | PromptQuestion): Promise<T | undefined> {
  const { prompt } = require('enquirer') as typeof import('enquirer')
  colourOnlyOnTerminal()
  const options = typeof question === 'string' ? { message: question } : question
  try {
    // A library seam: enquirer types each kind of prompt's options apart, and a caller's question may name any kind.
    const answer = (await prompt({ type: 'input', ...options, name: 'value' } as never)) as { value: T }
    return answer.value
  } catch (error) {
    // enquirer rejects with nothing (or an empty string) when the prompt is cancelled.
    if (error === undefined || error === '' || error === null) return undefined
    throw error
  }
}

/** enquirer's colours (ansi-colors) follow NO_COLOR and the terminal, as oclif's own output does. */
function colourOnlyOnTerminal(): void {
  const { dirname } = require('node:path') as typeof import('node:path')
  const colours = require(require.resolve('ansi-colors', { paths: [dirname(require.resolve('enquirer'))] })) as {
    enabled: boolean
  }
  if (process.env.NO_COLOR || !process.stdout.isTTY) colours.enabled = false
}

/** Runs a command in this process by the words a user types. */
export function invoker(config: Config): MenuContext['invoke'] {
  return (command, argv = []) => {
    const words = command.trim().split(/[\s:]+/)
    const id = words.join(':')
    return config.runCommand(id, [...argv])
  }
}

export function menuContext(
  plugin: string,
  api: unknown,
  session: CliSession,
  config: Config,
  log: (message: string) => void,
): MenuContext {
  // The plugin manager acts as the person at the menu; `bsm` (the plugin's API) as the plugin.
  const request = <K extends CommandName>(name: K, payload: CommandPayload<K>) =>
    session.request(name, payload, CliSession.actor)
  return {
    plugin,
    obj: {
      bsm: api,
      pluginManager: {
        list: () => request('plugins:list', {}) as Promise<PluginRecord[]>,
        info: (name) => request('plugins:info', { name }),
        setEnabled: (name, enabled) => request('plugins:set_enabled', { name, enabled }),
        reload: () => request('plugins:reload', {}) as Promise<ReloadReport>,
        triggerEvent: (event, payload) =>
          request('plugins:trigger_event', { event, payload: payload ?? {} }) as Promise<DeliveryReport>,
      },
    },
    invoke: invoker(config),
    prompt: ask,
    log,
  }
}
