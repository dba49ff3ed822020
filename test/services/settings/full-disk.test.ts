import { unlinkSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import { cliIn, cliInOk, managerOn } from '../../helpers/cli-in-process'
import { fill, fullDiskSuite, managerPid, show } from '../../helpers/full-disk'
import { alive, untilGone } from '../../helpers/game'
import { cli, cliStart } from '../../helpers/run'
import { http } from '../../helpers/web'
import { adminSession } from '../../helpers/web-process'

// Commands run in this process (cliIn), on the data directory of the full disk as a process's
// would: with no manager each boots one here, on that disk. Cold processes stay where a real
// process's exit is what issue 32 asks for: the first refused change of each test (exit 74 from a
// one-shot process, and from a client of a running manager), the refused secret mark with no
// manager (kept hidden in the process that tried it), and the first manager, detached, as
// `start --detached` leaves it (its output file on the full disk too), which must outlive the
// refusals and answers HTTP.

/** The message of a setting change that a full disk kept from the log. */
const refused = (data: string, key: string) =>
  new RegExp(
    `^Error \\[SM_ERR_DB_FULL\\]: The disk that holds the database '${join(data, 'server-manager.db')}' is full, so nothing could be recorded: the setting '${key}' .*keeps the value it had\\. Free space on it`,
    'm',
  )

describe('services/settings: a change on a full disk is refused, never answered as done (issue 32 item 6)', function () {
  this.timeout(240_000)
  const disk = fullDiskSuite('sm-full-settings-')
  const ok = (args: string[]) => cliInOk(disk.data, args)

  /** Fills the disk for `work`, then frees it again, whatever happened. */
  async function whileFull(work: () => Promise<void>): Promise<void> {
    const filler = join(disk.mount, 'filler')
    fill(filler)
    try {
      await work()
    } finally {
      unlinkSync(filler)
    }
  }

  it('with no manager: setting set (merge, a new key, --secret) and unset exit 74 naming the database, and every key keeps its value', async () => {
    await ok(['setting', 'set', 'custom.kept', 'old'])
    await ok(['setting', 'set', 'custom.tree', '{"a":1}'])
    await ok(['setting', 'set', 'web.port', '0'])
    await whileFull(async () => {
      // The first as a process, the rest in this process but the secret mark: a mark that could not be
      // recorded stays hidden in the process that tried it (safe), which this process would keep.
      for (const [i, [args, key]] of (
        [
          [['setting', 'set', 'custom.kept', 'new'], 'custom.kept'],
          [['setting', 'set', 'custom.fresh', '1'], 'custom.fresh'],
          [['setting', 'set', 'custom.tree', '{"b":2}'], 'custom.tree'],
          [['setting', 'set', 'custom.tree', '{"b":2}', '--replace'], 'custom.tree'],
          [['setting', 'set', 'web.port', '8123'], 'web.port'],
          [['setting', 'unset', 'custom.kept'], 'custom.kept'],
          [['setting', 'set', 'custom.kept', 'new', '--secret'], 'custom.kept'],
        ] as const
      ).entries()) {
        const r = await (i === 0 || args.at(-1) === '--secret' ? cli : cliIn)(disk.data, args)
        expect(r.code, `${args.join(' ')}: ${show(r)}`).to.equal(74)
        expect(r.stderr).to.match(refused(disk.data, key))
        expect(r.stdout).to.equal('')
      }
      // Reading needs no space: what is stored is what was there.
      expect((await ok(['setting', 'get', 'custom.kept'])).trim()).to.equal('old')
    })
    // Space again: nothing reported as failed is there, and the key is not secret.
    expect((await ok(['setting', 'get', 'custom.kept'])).trim()).to.equal('old')
    expect(JSON.parse(await ok(['setting', 'get', 'custom.tree']))).to.deep.equal({ a: 1 })
    expect((await ok(['setting', 'get', 'web.port'])).trim()).to.equal('0')
    const fresh = await cliIn(disk.data, ['setting', 'get', 'custom.fresh'])
    expect(fresh.code, show(fresh)).not.to.equal(0)
    expect(fresh.stderr).to.include('SM_ERR_SETTINGS_NOT_FOUND')
    expect(await ok(['events', '--type', 'settings:marked_secret'])).not.to.include('custom.kept')
    // And the next change works, without a restart.
    await ok(['setting', 'set', 'custom.kept', 'newer'])
    expect((await ok(['setting', 'get', 'custom.kept'])).trim()).to.equal('newer')
  })

  it('with a running manager: setting set, setting unset, PUT and DELETE /api/settings/<key> fail (exit 74, HTTP 507 naming the database to an admin), and the value stands after a restart', async () => {
    await ok(['setting', 'set', 'custom.kept', 'old'])
    const started = await cliStart(disk.data, ['--detached'])
    expect(started.code, show(started)).to.equal(0)
    const pid = managerPid(disk.data)
    const url = /web UI and API on (http:\/\/\S+)/.exec(started.stdout)?.[1] as string
    const token = await adminSession(disk.data, url)
    await whileFull(async () => {
      // The first as a client process of the manager, the rest as clients in this process.
      for (const [i, [args, key]] of (
        [
          [['setting', 'set', 'custom.kept', 'new'], 'custom.kept'],
          [['setting', 'unset', 'custom.kept'], 'custom.kept'],
          [['setting', 'set', 'custom.hidden', 'new', '--secret'], 'custom.hidden'],
        ] as const
      ).entries()) {
        const r = await (i === 0 ? cli : cliIn)(disk.data, args)
        expect(r.code, `${args.join(' ')}: ${show(r)}`).to.equal(74)
        expect(r.stderr).to.match(refused(disk.data, key))
      }
      const put = await http(`${url}/api/settings/custom.kept`, { method: 'PUT', token, body: { value: 'new' } })
      expect(put.status, put.text).to.equal(507)
      expect(put.json).to.include({ status: 'error', code: 'SM_ERR_DB_FULL' })
      expect(`Error [${put.json.code}]: ${put.json.message}`).to.match(refused(disk.data, 'custom.kept'))
      const put2 = await http(`${url}/api/settings/web.port`, { method: 'PUT', token, body: { value: 8123 } })
      expect(put2.status, put2.text).to.equal(507)
      const del = await http(`${url}/api/settings/custom.kept`, { method: 'DELETE', token })
      expect(del.status, del.text).to.equal(507)
      expect(del.json.code).to.equal('SM_ERR_DB_FULL')
      // The manager answers reads, with the old value.
      const read = await http(`${url}/api/settings/custom.kept`, { token })
      expect(read.status, read.text).to.equal(200)
      expect(read.json.value).to.equal('old')
    })
    expect(alive(pid), 'the manager ended').to.equal(true)
    expect((await ok(['setting', 'get', 'custom.kept'])).trim()).to.equal('old')
    expect((await http(`${url}/api/settings/custom.kept`, { token })).json.value).to.equal('old')
    // The same manager records the mark it could not record before.
    await ok(['setting', 'set', 'custom.hidden', 'x', '--secret'])
    expect(await ok(['events', '--type', 'settings:marked_secret'])).to.include('custom.hidden')
    // A new manager (in this process) reads the log afresh: nothing of the refused changes is there either.
    await ok(['web', 'stop'])
    // Gone, and its manager.json with it (removed as it ends, after its socket is closed).
    await untilGone(pid as number)
    await managerOn(disk.data)
    expect(managerPid(disk.data)).to.equal(process.pid)
    expect((await ok(['setting', 'get', 'custom.kept'])).trim()).to.equal('old')
    expect((await ok(['setting', 'get', 'web.port'])).trim()).to.equal('0')
  })
})
