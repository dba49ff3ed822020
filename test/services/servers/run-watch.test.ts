import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import { silentLogger } from '../../../kernel'
import { RunMoves } from '../../../services/servers/run-moves'
import { RunWatch } from '../../../services/servers/run-watch'
import { RunFiles, runStatusOf } from '../../../services/servers/supervisor/run-files'
import { tempDir } from '../../helpers/temp-dir'

/** A run watch on a fresh data directory, with what it told and a way to wait for its next word about a server. */
function watched() {
  const data = tempDir()
  const told: (string | undefined)[] = []
  const lost: string[] = []
  const waiters: { name: string | undefined; resolve: () => void }[] = []
  const watch = new RunWatch(
    data,
    (name) => {
      told.push(name)
      for (const waiter of waiters.filter((w) => w.name === name)) {
        waiters.splice(waiters.indexOf(waiter), 1)
        waiter.resolve()
      }
    },
    (reason) => lost.push(reason),
  )
  const next = (name: string | undefined) => new Promise<void>((resolve) => waiters.push({ name, resolve }))
  return { servers: join(data, 'servers'), watch, told, lost, next }
}

describe('services/servers: the run watch hears what any process changes in the run files (issue 36 item 4)', () => {
  it('tells a status file written, not a console line, in a run directory made, removed and made again', async () => {
    const { servers, watch, told, next } = watched()
    watch.start()
    try {
      const dir = join(servers, 's1')
      // No run directory yet: its making would be told.
      expect(watch.watched('s1')).to.equal(true)
      let heard = next('s1')
      mkdirSync(dir)
      await heard
      // Another directory made after it: once it is told, the watch of the first one is set.
      heard = next('other')
      mkdirSync(join(servers, 'other'))
      await heard
      expect(watch.watched('s1')).to.equal(true)

      // A console line, then the state: one word, the state's (a watch tells in order).
      told.length = 0
      heard = next('s1')
      writeFileSync(join(dir, 'console.log'), 'a line\n')
      writeFileSync(join(dir, 'state.json'), '{}')
      await heard
      expect(told).to.deep.equal(['s1'])

      // Removed and made again: the new directory is watched.
      rmSync(dir, { recursive: true })
      mkdirSync(dir)
      // Whatever watch tells it, it comes after the two above (one inotify queue, in order).
      heard = next('other')
      writeFileSync(join(servers, 'other', 'spec.json'), '{}')
      await heard
      expect(watch.watched('s1')).to.equal(true)
      told.length = 0
      heard = next('s1')
      writeFileSync(join(dir, 'spec.json'), '{}')
      await heard
      expect(told).to.include('s1')
    } finally {
      watch.close()
    }
  })

  it('watches nothing once its folder is removed, tells every server, and says why', async () => {
    const { servers, watch, lost, next } = watched()
    watch.start()
    try {
      mkdirSync(join(servers, 's1'))
      const everyone = next(undefined)
      rmSync(servers, { recursive: true })
      await everyone
      expect(watch.watched('s1')).to.equal(false)
      expect(watch.watched('never')).to.equal(false)
      expect(lost).to.have.length(1)
      expect(lost[0]).to.include('was removed')
      // Made again, it is still not watched: the list reads every time until the manager starts again.
      mkdirSync(join(servers, 's1'), { recursive: true })
      expect(watch.watched('s1')).to.equal(false)
    } finally {
      watch.close()
    }
  })

  it('watches nothing after close, and nothing before start', () => {
    const { watch } = watched()
    expect(watch.watched('s1')).to.equal(false)
    watch.start()
    expect(watch.watched('s1')).to.equal(true)
    watch.close()
    expect(watch.watched('s1')).to.equal(false)
  })
})

describe('services/servers: when a status read may be held (issue 36 item 4)', () => {
  const stopped = { status: 'stopped' } as const
  const running = { status: 'running', pid: 1, supervisorPid: 2 } as const

  it('holds a run the manager follows, and one not under way whose files are watched and leave no work unfinished', () => {
    const data = tempDir()
    let following = false
    const moves = new RunMoves(data, { active: true, watching: () => following }, silentLogger)
    // Its run directory is there from the start: watched as the watch begins.
    const files = RunFiles.of(data, 's1')
    files.ensureDir()
    expect(moves.holds('s1', runStatusOf(undefined)), 'before the watch began').to.equal(undefined)
    expect(moves.start()).to.equal(true)
    try {
      expect(moves.holds('s1', runStatusOf(undefined))).to.equal('watched')
      expect(moves.holds('s1', { ...runStatusOf(undefined), ...running })).to.equal(undefined)
      following = true
      expect(moves.holds('s1', { ...runStatusOf(undefined), ...running })).to.equal('followed')
      following = false

      // Work left to finish: its holder may die without a file changing, and a look must finish it.
      for (const left of [files.intent, files.hold]) {
        writeFileSync(left, '{}')
        expect(moves.holds('s1', { ...runStatusOf(undefined), ...stopped }), left).to.equal(undefined)
        rmSync(left)
      }
      expect(moves.holds('s1', runStatusOf(undefined))).to.equal('watched')
    } finally {
      moves.close()
    }
    expect(moves.holds('s1', runStatusOf(undefined)), 'after the stop').to.equal(undefined)
    expect(moves.start(), 'not again once stopped').to.equal(false)
  })

  it("moves a server's count for its power actions, before and after, and holds nothing during one", async () => {
    const data = tempDir()
    const moves = new RunMoves(data, { active: true, watching: () => false }, silentLogger)
    moves.start()
    try {
      const before = moves.count('s1')
      let during = 0
      await moves.acting('s1', async () => {
        during = moves.count('s1')
        expect(moves.holds('s1', runStatusOf(undefined))).to.equal(undefined)
      })
      expect(during).to.be.above(before)
      expect(moves.count('s1')).to.be.above(during)
      expect(moves.count('s2')).to.equal(before, 'another server did not move')
    } finally {
      moves.close()
    }
  })
})
