import { expect } from 'chai'
import type { PluginApi } from '../../../index'
import { describeApi } from '../../../services/plugins/api-table'
import { fakeBedrockDir } from '../../helpers/game'
import { managerCatalogue } from '../../helpers/manager'
import { plugin, withPlugins } from '../../helpers/plugins'
import { rejection } from '../../helpers/rejection'

/** A plugin that hands its own `this.api` to the test, which calls it as that plugin would. */
const KEEPER = plugin(
  'Keeper',
  `override async onLoad() { (globalThis as Record<string, unknown>).keptApi = this.api }`,
)
const keptApi = () => (globalThis as { keptApi?: PluginApi }).keptApi as PluginApi
/** Only a plugin in the manager's own thread can hand the test its `this.api` (plugins.isolation). */
const IN_PROCESS = { 'plugins.isolation': 'none' }

/** Vetoes every server start and every change to custom.locked, naming itself. */
const GATEKEEPER = plugin(
  'Gatekeeper',
  `beforeServerStart() { return { cancel: true, reason: 'maintenance window' } as const }
  beforeSettingUpdate({ key }: { key: string }) {
    if (key === 'custom.locked') return { cancel: true, reason: 'custom.locked is read-only' } as const
    return undefined
  }`,
)

/**
 * Arguments that reach each operation's work: valid by its parameters, on a server that does
 * not exist where it takes one (so nothing starts, and the service itself answers).
 */
const CALLS: Record<string, unknown[]> = {
  sendEvent: ['keeper:probe', { n: 1 }],
  listenForEvent: ['keeper:probe', () => undefined],
  getGlobalSetting: ['web.port'],
  setCustomGlobalSetting: ['probe', 1],
  getPluginStatuses: [],
  listAvailableApis: [],
  listServers: [],
  getServerProfile: ['nosuch'],
  listPlayers: ['nosuch'],
  getServerRunningStatus: ['nosuch'],
  startServer: ['nosuch'],
  stopServer: ['nosuch'],
  restartServer: ['nosuch'],
  sendCommand: ['nosuch', 'list'],
  getServerSetting: ['nosuch', 'autostart'],
  setServerCustomValue: ['nosuch', 'probe', 1],
  backupWorld: ['nosuch'],
  backupAll: ['nosuch', { stopStartServer: true }],
  restoreWorld: ['nosuch', 'world.mcworld'],
  listBackups: ['nosuch'],
  pruneBackups: ['nosuch', 2],
  runTask: ['probe', async () => 1],
  getUserAccess: ['nobody'],
}

/** What a call came to: `ok`, or the code it rejected with. */
async function outcome(call: unknown): Promise<string> {
  try {
    await call
    return 'ok'
  } catch (error) {
    return String((error as { code?: unknown }).code)
  }
}

describe('services/plugins: this.api, declared once in its table', () => {
  it('answers every operation of the table under its name and each alias, each reaching its work', async () => {
    await withPlugins({ 'keeper.ts': KEEPER }, { settings: IN_PROCESS, enable: ['keeper'] }, async () => {
      const api = keptApi() as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>
      const table = describeApi(managerCatalogue().commands())
      const names = table.flatMap((op) => [op.name, ...op.aliases])
      expect(Object.keys(api).sort()).to.deep.equal([...names].sort())
      expect(Object.isFrozen(api)).to.equal(true)
      const outcomes: Record<string, string> = {}
      for (const op of table) {
        const args = CALLS[op.name]
        expect(args, `a call of ${op.name} in this test`).to.not.equal(undefined)
        for (const name of [op.name, ...op.aliases]) outcomes[name] = await outcome(api[name]?.(...(args ?? [])))
      }
      const serverOps = table.filter((op) => op.parameters[0]?.name === 'serverName').map((op) => op.name)
      expect(serverOps).to.have.length(14)
      for (const op of table) {
        // On a server or a user that does not exist: the service itself answers.
        const expected = serverOps.includes(op.name)
          ? 'SM_ERR_SERVER_NOT_FOUND'
          : op.name === 'getUserAccess'
            ? 'SM_ERR_AUTH_USER_NOT_FOUND'
            : 'ok'
        expect(outcomes[op.name], op.name).to.equal(expected)
        for (const alias of op.aliases) expect(outcomes[alias], alias).to.equal(expected)
      }
      // The seed's names, each an alias of the operation it was.
      const aliases = Object.fromEntries(table.flatMap((op) => op.aliases.map((alias) => [alias, op.name])))
      expect(aliases).to.deep.equal({
        send_event: 'sendEvent',
        listen_for_event: 'listenForEvent',
        get_server_running_status: 'getServerRunningStatus',
        start_server: 'startServer',
        backup_world: 'backupWorld',
        send_command: 'sendCommand',
        set_custom_global_setting: 'setCustomGlobalSetting',
        get_global_setting: 'getGlobalSetting',
      })
      expect(await keptApi().get_global_setting('custom.probe')).to.equal(1)
    })
  })

  it('refuses a bad argument with SM_ERR_PLUGIN_API_BAD_ARGUMENT, naming the parameter and the usage, and does nothing', async () => {
    await withPlugins({ 'keeper.ts': KEEPER }, { settings: IN_PROCESS, enable: ['keeper'] }, async ({ manager }) => {
      const api = keptApi() as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>
      const bad: [string, unknown[], string][] = [
        ['startServer', [42], "a bad 'serverName': Invalid input: expected string, received number"],
        ['start_server', ['alpha', 'sideways'], "a bad 'mode'"],
        ['backupWorld', ['alpha', { stopStart: true }], "a bad 'options'"],
        ['backupAll', ['alpha', { stopStartServer: 'yes' }], "a bad 'options.stopStartServer'"],
        ['listServers', ['extra'], 'a bad argument 1: it takes no arguments'],
        ['sendCommand', ['alpha', 'list', 'more'], 'a bad argument 3: it takes at most 2'],
        ['listenForEvent', ['keeper:x', 'not a function'], "a bad 'listener': it is not a function"],
        ['setCustomGlobalSetting', ['forgotten'], "a bad 'value': it is missing"],
        ['sendEvent', ['keeper:x', [1, 2]], "a bad 'payload'"],
        ['pruneBackups', ['alpha', -1], "a bad 'keep'"],
      ]
      for (const [name, args, reason] of bad) {
        const error = await rejection(api[name]?.(...args) as Promise<unknown>)
        expect(error.code, name).to.equal('SM_ERR_PLUGIN_API_BAD_ARGUMENT')
        expect(error.status, name).to.equal(422)
        expect(error.message, name).to.contain(`called this.api.${name} with ${reason}`)
      }
      const error = await rejection(api.startServer?.(42) as Promise<unknown>)
      expect(error.message).to.contain("Call it as startServer(serverName, mode = 'detached')")
      expect((await manager.bus.request('settings:get', { key: 'custom.forgotten' })).found).to.equal(false)
      expect(await manager.bus.request('events:read', { types: ['plugins:event_triggered'] })).to.deep.equal([])
    })
  })

  it('rejects a vetoed start and a vetoed setting with their cancelled codes, naming who vetoed and why', async () => {
    await withPlugins(
      { 'keeper.ts': KEEPER, 'gatekeeper.ts': GATEKEEPER },
      { settings: IN_PROCESS, enable: ['keeper', 'gatekeeper'] },
      async ({ manager }) => {
        await manager.bus.request('servers:add', { name: 'alpha', dir: fakeBedrockDir() })
        for (const start of [() => keptApi().startServer('alpha'), () => keptApi().start_server('alpha')]) {
          const error = await rejection(start())
          expect(error.code).to.equal('SM_ERR_SERVER_CHANGE_CANCELLED')
          expect(error.params).to.deep.include({
            server: 'alpha',
            by: 'plugin:gatekeeper',
            reason: 'maintenance window',
          })
          expect(error.message).to.contain("was cancelled by 'plugin:gatekeeper': maintenance window")
        }
        expect((await keptApi().getServerRunningStatus('alpha')).running).to.equal(false)
        const facts = await manager.bus.request('events:read', { types: ['after_server_start'] })
        expect(facts.map((f) => [f.actor, (f.payload as { result: { status: string } }).result.status])).to.deep.equal([
          ['plugin:keeper', 'cancelled'],
          ['plugin:keeper', 'cancelled'],
        ])
        const setting = await rejection(keptApi().setCustomGlobalSetting('locked', 1))
        expect(setting.code).to.equal('SM_ERR_SETTINGS_UPDATE_CANCELLED')
        expect(setting.params).to.deep.include({ by: 'plugin:gatekeeper', reason: 'custom.locked is read-only' })
        expect(await keptApi().setCustomGlobalSetting('open', 1)).to.deep.include({ status: 'success', value: 1 })
      },
    )
  })
})
