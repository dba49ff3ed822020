import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import type { Schedule } from '../../../services/servers/schedules'
import { cliIn, cliInOk, managerOn } from '../../helpers/cli-in-process'
import { gameDataDir } from '../../helpers/game'
import { startManager } from '../../helpers/manager'
import { spawnCli, spawnManager, stop, waitForLine } from '../../helpers/run'
import { tempDir } from '../../helpers/temp-dir'
import { http, startWeb } from '../../helpers/web'

/** A directory that passes for a bedrock server (never started here). */
function bedrockDir(): string {
  const dir = join(tempDir(), 'bds')
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'bedrock_server'), '#!/bin/sh\n', { mode: 0o755 })
  writeFileSync(join(dir, 'server.properties'), 'server-name=x\n')
  return dir
}

/** The manager on `data` (its web on any free port: spawnManager sets it), ready, and a follower of its schedules' runs. */
async function managerWithRuns(data: string) {
  const manager = await spawnManager(data)
  await waitForLine(manager, /^ready in/)
  return { manager, ran: spawnCli(data, ['events', '--follow', '--type', 'servers:schedule_ran', '--json']) }
}

/** Adds a schedule sending `say hi` to `server` every second (through the running manager); its id. */
async function everySecond(data: string, server: string): Promise<string> {
  const added = await cliInOk(data, [
    'server',
    'schedule',
    'add',
    server,
    '--cron',
    '* * * * * *',
    '--action',
    'command',
    '--command',
    'say hi',
    '--json',
  ])
  return JSON.parse(added).id
}

/** A schedule as a version without the time zone check recorded it. */
const POISONED: Schedule = {
  id: 'bad00001',
  server: 'one',
  cron: '0 3 * * *',
  action: 'backup',
  command: undefined,
  timezone: 'Mars/Olympus',
  addedAt: '2026-01-01T00:00:00.000Z',
}

describe('services/servers: schedules (time zones: issue 18 item 12; those of a removed server)', function () {
  this.timeout(60_000)

  it('refuses an unknown time zone with a coded error naming it, over HTTP (422) and the CLI (exit 64), storing nothing', async () => {
    const web = await startWeb()
    try {
      await web.manager.bus.request('servers:add', { name: 'one', dir: bedrockDir() })
      for (const timezone of ['Mars/Olympus', '', '+01:00']) {
        const reply = await http(`${web.url}/api/servers/one/schedules`, {
          token: web.admin,
          body: { cron: '0 3 * * *', action: 'backup', timezone },
        })
        expect(reply.status, timezone).to.equal(422)
        expect(reply.json).to.include({ status: 'error', code: 'SM_ERR_SCHEDULE_INVALID' })
        expect(reply.json.message).to.contain(`'${timezone}'`)
      }
      const good = await http(`${web.url}/api/servers/one/schedules`, {
        token: web.admin,
        body: { cron: '0 3 * * *', action: 'backup', timezone: 'Europe/Berlin' },
      })
      expect(good.status).to.equal(201)
      const list = await http(`${web.url}/api/servers/one/schedules`, { token: web.admin })
      expect(list.status).to.equal(200)
      expect(list.json.schedules.map((s: Schedule) => s.timezone)).to.deep.equal(['Europe/Berlin'])
    } finally {
      await web.manager.stop()
    }

    const data = tempDir()
    await managerOn(data)
    await cliInOk(data, ['server', 'add', 'one', '--dir', bedrockDir()])
    const r = await cliIn(data, [
      'server',
      'schedule',
      'add',
      'one',
      '--cron',
      '0 3 * * *',
      '--action',
      'backup',
      '--timezone',
      'Mars/Olympus',
    ])
    expect(r.code).to.equal(64)
    expect(r.stderr).to.contain('[SM_ERR_SCHEDULE_INVALID]').and.to.contain("'Mars/Olympus' is not a time zone")
    // A cron expression's error says what to give, in our words: not the library's, no '..' (issue 20).
    const cron = await cliIn(data, ['server', 'schedule', 'add', 'one', '--cron', 'every day', '--action', 'backup'])
    expect(cron.code).to.equal(64)
    expect(cron.stderr).to.match(
      /^Error \[SM_ERR_SCHEDULE_INVALID\]: That schedule for 'one' cannot be added: 'every day' is not a cron expression \(invalid configuration format \('every day'\), exactly five, six, or seven space separated parts are required\); give 'minute hour day-of-month month day-of-week', such as '0 4 \* \* \*' for 04:00 every day, with an optional seconds field first\. Nothing was added\.$/m,
    )
    expect(JSON.parse(await cliInOk(data, ['server', 'schedule', 'list', '--json']))).to.deep.equal([])
    expect(JSON.parse(await cliInOk(data, ['events', '--type', 'servers:schedule_added', '--json']))).to.deep.equal([])
  })

  it('lists a stored schedule that cannot run as invalid, and it breaks neither listing, adding nor the manager and its runner', async () => {
    const data = gameDataDir()
    // An older version stored it (its check did not exist then).
    const old = await startManager({ dataDir: data })
    try {
      await old.bus.request('servers:add', { name: 'one', dir: bedrockDir() })
      await old.bus.request('servers:add', { name: 'two', dir: bedrockDir() })
      await old.bus.emit('servers:schedule_added', { schedule: POISONED })
    } finally {
      await old.stop()
    }

    // The manager starts with it stored; listed and added to through it.
    const { manager, ran } = await managerWithRuns(data)
    try {
      const list = JSON.parse(await cliInOk(data, ['server', 'schedule', 'list', '--json']))
      expect(list).to.have.length(1)
      expect(list[0]).to.include({ id: POISONED.id })
      expect(list[0].invalid).to.contain("'Mars/Olympus' is not a time zone")
      expect(await cliInOk(data, ['server', 'schedule', 'list'])).to.match(
        /bad00001 .*INVALID, skipped: 'Mars\/Olympus'/,
      )
      await cliInOk(data, ['server', 'schedule', 'add', 'two', '--cron', '0 4 * * *', '--action', 'restart'])
      // Through the running manager: adding syncs its runner with every stored schedule.
      const every = await everySecond(data, 'two')
      // The runner still runs the good ones: this one fails (the server is not running), as a fact.
      const line = await waitForLine(ran, /"type":"servers:schedule_ran"/)
      expect(JSON.parse(line).payload).to.include({ id: every, server: 'two' })
      const listed = JSON.parse(await cliInOk(data, ['server', 'schedule', 'list', '--json']))
      expect(
        listed.map((s: { id: string; invalid?: string }) => [s.id, s.invalid !== undefined]),
      ).to.deep.include.members([
        [POISONED.id, true],
        [every, false],
      ])
      expect(await cliInOk(data, ['server', 'schedule', 'remove', POISONED.id])).to.match(/removed/)
      expect(await stop(manager)).to.equal(0)
    } finally {
      manager.kill('SIGKILL')
      ran.kill('SIGKILL')
    }
  })

  it('a server removed while the manager runs takes its schedules with it: the runner stops them at once', async () => {
    const data = gameDataDir()
    const { manager, ran } = await managerWithRuns(data)
    try {
      await cliInOk(data, ['server', 'add', 'gone', '--dir', bedrockDir()])
      await cliInOk(data, ['server', 'add', 'kept', '--dir', bedrockDir()])
      const runsOf = async (id: string) =>
        (
          JSON.parse(
            await cliInOk(data, ['events', '--type', 'servers:schedule_ran', '--json', '--limit', '1000']),
          ) as {
            seq: number
            payload: { id: string }
          }[]
        ).filter((r) => r.payload.id === id)
      const gone = await everySecond(data, 'gone')
      const kept = await everySecond(data, 'kept')
      await waitForLine(ran, new RegExp(`"id":"${gone}"`))
      await cliInOk(data, ['server', 'remove', 'gone'])
      const [removed] = JSON.parse(await cliInOk(data, ['events', '--type', 'servers:removed', '--json'])) as {
        seq: number
      }[]
      // Both ran every second, at the same ticks: three runs of the other one after the removal, none of its.
      const after = (r: { seq: number }) => r.seq > (removed?.seq as number)
      for (;;) {
        const line = await waitForLine(ran, new RegExp(`"id":"${kept}"`))
        if (after(JSON.parse(line)) && (await runsOf(kept)).filter(after).length >= 3) break
      }
      const second = (await runsOf(kept)).filter(after)[1]?.seq as number
      expect((await runsOf(gone)).filter((r) => r.seq > second)).to.deep.equal([])
      expect(JSON.parse(await cliInOk(data, ['server', 'schedule', 'list', '--json']))).to.have.length(1)
      expect(await stop(manager)).to.equal(0)
    } finally {
      manager.kill('SIGKILL')
      ran.kill('SIGKILL')
    }
  })
})
