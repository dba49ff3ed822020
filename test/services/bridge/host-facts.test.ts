import { expect } from 'chai'
import { Catalogue } from '../../../kernel'
import { admitHostFacts, type KnownServer } from '../../../services/bridge/host-facts'
import type { StoredEvent } from '../../../services/events/contract'
import { filesActions } from '../../../services/files/actions'
import { serversActions } from '../../../services/servers/actions'
import { serversEvents } from '../../../services/servers/contract'

/** What the manager's kernel declares of servers and their files: the facts' schemas and the server actions. */
const catalogue = new Catalogue()
catalogue.add([serversEvents, serversActions, filesActions], 'the test')

const NOW = Date.parse('2026-11-27T09:00:00.000Z')
const at = (offsetMs: number) => new Date(NOW + offsetMs).toISOString()
const record = (name: string, addedAt: string) => ({
  name,
  dir: `/srv/${name}`,
  profile: 'bedrock',
  command: './bedrock_server',
  args: [],
  env: {},
  stopCommand: 'stop',
  addedAt,
})
const ok = { status: 'success' }

/** The registry: this manager's `loc1`, node2's `far` (added an hour ago), node3's `other`. */
const servers = new Map<string, KnownServer>([
  ['loc1', { host: undefined, addedAt: at(-7_200_000) }],
  ['far', { host: 'node2', addedAt: at(-3_600_000) }],
  ['other', { host: 'node3', addedAt: at(-3_600_000) }],
])

function admit(facts: Partial<StoredEvent>[]) {
  const events = facts.map((fact, i) => ({ seq: i + 1, time: at(0), actor: 'cli:root', payload: {}, ...fact }))
  return admitHostFacts('node2', events as StoredEvent[], servers, catalogue, NOW)
}

describe("services/bridge: a host's facts, checked before the manager takes them in (issue 32, item 10)", () => {
  it("takes in its own servers' facts, as the host's actor, and a server it adds for the facts after it", () => {
    const { admitted, refused } = admit([
      { type: 'after_server_start', payload: { serverName: 'far', mode: 'detached', result: ok }, actor: 'http:admin' },
      { type: 'servers:added', payload: { server: record('new', at(0)) } },
      { type: 'servers:setting_changed', payload: { name: 'new', key: 'autostart', value: true } },
      { type: 'after_player_join', payload: { serverName: 'far', name: 'Steve', result: ok } },
      { type: 'servers:edited', payload: { name: 'far', changes: { readyLine: '^Ready' } } },
      { type: 'servers:backup_deleted', payload: { name: 'far', file: 'far_world_x.mcworld' } },
      { type: 'after_server_install', payload: { serverName: 'never', source: '/x.zip', mode: 'install', result: ok } },
      {
        type: 'after_server_status_change',
        payload: { serverName: 'far', status: 'crashed', at: at(-60_000), result: ok },
        time: at(0),
      },
    ])
    expect(refused).to.deep.equal([])
    expect(admitted.map((e) => [e.type, e.actor])).to.deep.equal([
      ['after_server_start', 'host:node2/http:admin'],
      ['servers:added', 'host:node2/cli:root'],
      ['servers:setting_changed', 'host:node2/cli:root'],
      ['after_player_join', 'host:node2/cli:root'],
      ['servers:edited', 'host:node2/cli:root'],
      ['servers:backup_deleted', 'host:node2/cli:root'],
      ['after_server_install', 'host:node2/cli:root'],
      ['after_server_status_change', 'host:node2/cli:root'],
    ])
  })

  it('refuses every other kind, server, decoy, time and actor, saying why', () => {
    const { admitted, refused } = admit([
      { type: 'after_setting_update', payload: { key: 'web.port', value: 1, result: ok } },
      { type: 'servers:console', payload: { serverName: 'far', line: 'x' } },
      { type: 'servers:added', payload: { server: record('loc1', at(0)) } },
      { type: 'servers:added', payload: { server: record('other', at(0)) } },
      {
        type: 'servers:schedule_added',
        payload: {
          schedule: {
            id: 'x',
            server: 'loc1',
            cron: '* * * * * *',
            action: 'command',
            command: 'op Steve',
            addedAt: at(0),
          },
        },
      },
      { type: 'servers:schedule_removed', payload: { id: 'x', server: 'other' } },
      { type: 'servers:edited', payload: { name: 'loc1', changes: { command: '/bin/evil' } } },
      { type: 'servers:removed', payload: { name: 'loc1', serverName: 'far', filesDeleted: false } },
      { type: 'servers:removed', payload: { name: 'far', filesDeleted: false, forgotten: 'node2' } },
      { type: 'after_server_stop', payload: { serverName: 'far', server: 'loc1', reason: 'stop', result: ok } },
      { type: 'after_server_start', payload: { serverName: 'ghost', mode: 'detached', result: ok } },
      { type: 'after_server_crash', payload: { serverName: 'far', at: '1999-01-01T00:00:00.000Z', result: ok } },
      { type: 'after_command_send', payload: { serverName: 'far', command: 'list', result: ok }, time: at(3_600_000) },
      {
        type: 'after_command_send',
        payload: { serverName: 'far', command: 'list', result: ok },
        actor: 'cli:\u001b[2J',
      },
    ])
    expect(admitted).to.deep.equal([])
    expect(refused.map((r) => [r.seq, r.reason])).to.deep.equal([
      [1, "a host does not record 'after_setting_update' (only its servers' facts)"],
      [2, "a host does not record 'servers:console' (only its servers' facts)"],
      [3, "the server 'loc1' is not one of host 'node2' (it is this manager's own)"],
      [4, "the server 'other' is not one of host 'node2' (it is on host 'node3')"],
      [5, "the server 'loc1' is not one of host 'node2' (it is this manager's own)"],
      [6, "the server 'other' is not one of host 'node2' (it is on host 'node3')"],
      [7, "the server 'loc1' is not one of host 'node2' (it is this manager's own)"],
      [8, "it holds 'serverName', which 'servers:removed' does not declare"],
      [9, "'forgotten' is this manager's word (server remove --forget), never a host's"],
      [10, "its 'server' names a server where a 'after_server_stop' names none (a decoy)"],
      [11, "no server 'ghost' is one of host 'node2'"],
      [12, `its 'at' (1999-01-01T00:00:00.000Z) is before its server was added (${at(-3_600_000)})`],
      [13, `it was recorded at ${at(3_600_000)}, in this manager's future`],
      [14, 'its actor holds control characters'],
    ])
  })
})
