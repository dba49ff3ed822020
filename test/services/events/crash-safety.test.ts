import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { expect } from 'chai'
import { open } from 'sqlite'
import sqlite3 from 'sqlite3'
import { databasePath } from '../../../services/events'
import { withManager } from '../../helpers/manager'
import { run } from '../../helpers/run'
import { tempDir } from '../../helpers/temp-dir'

const PROGRAMS = join(__dirname, '..', '..', 'programs')

describe('services/events: crash safety and concurrency', () => {
  it('keeps every returned append, an intact file and projections equal to a rebuild after kill -9', async function () {
    this.timeout(60_000)
    const dataDir = tempDir()
    const child = spawn(process.execPath, [join(PROGRAMS, 'crash-writer.js'), dataDir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk
    })
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)))
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          output += chunk
          // Kill in the middle of the stream, well after thousands of events went in.
          if (output.split('\n').length > 120) resolve()
        })
        setTimeout(
          () => reject(new Error(`the writer printed too little: ${output.slice(-500)}\n${stderr}`)),
          45_000,
        ).unref()
      })
    } finally {
      // Also when it printed too little: it would write on into a temp dir the run removes.
      child.kill('SIGKILL')
    }
    expect(await exited).to.equal('SIGKILL')

    // Only lines whose newline was written count: the killed writer may have left half a line.
    const complete = output.slice(0, output.lastIndexOf('\n')).split('\n').filter(Boolean)
    const returnedSeqs: number[] = []
    const returnedKeys: string[] = []
    for (const line of complete) {
      const [kind, a, b] = line.split(' ')
      if (kind === 'append') for (let seq = Number(a); seq <= Number(b); seq++) returnedSeqs.push(seq)
      if (kind === 'set') {
        returnedKeys.push(a as string)
        returnedSeqs.push(Number(b))
      }
    }
    expect(returnedSeqs.length).to.be.greaterThan(2_000)

    const db = await open({ filename: databasePath(dataDir), driver: sqlite3.Database })
    const integrity = await db.all<{ integrity_check: string }[]>('PRAGMA integrity_check')
    const present = new Set((await db.all<{ seq: number }[]>('SELECT seq FROM events')).map((row) => row.seq))
    await db.close()
    expect(integrity.map((row) => row.integrity_check)).to.deep.equal(['ok'])
    expect(returnedSeqs.filter((seq) => !present.has(seq))).to.deep.equal([])

    await withManager(
      async ({ bus }) => {
        const check = await bus.request('events:check', {})
        expect(check.integrity).to.equal('ok')
        expect(check.drifted).to.deep.equal([])
        for (const key of returnedKeys) {
          const reply = await bus.request('settings:get', { key })
          expect(reply, key).to.deep.equal({ found: true, value: Number(key.slice('custom.k'.length)) })
        }
      },
      { dataDir },
    )
  })

  it('loses no update and never surfaces SQLITE_BUSY when two processes set different keys at once', async function () {
    this.timeout(120_000)
    const dataDir = tempDir()
    const count = 150
    const writer = (prefix: string) =>
      run(process.execPath, [join(PROGRAMS, 'settings-writer.js'), dataDir, prefix, String(count)], {
        timeoutMs: 100_000,
      })
    const results = await Promise.all([writer('a'), writer('b')])
    for (const result of results) {
      expect(result.stderr).to.not.contain('SQLITE_BUSY')
      expect(result.code, result.stderr).to.equal(0)
    }
    await withManager(
      async ({ bus }) => {
        const custom = (await bus.request('settings:get', { key: 'custom' })).value as Record<string, number>
        const expected = Object.fromEntries(
          ['a', 'b'].flatMap((p) => Array.from({ length: count }, (_, i) => [`${p}${i}`, i])),
        )
        expect(custom).to.deep.equal(expected)
        expect((await bus.request('events:check', {})).drifted).to.deep.equal([])
      },
      { dataDir },
    )
  })
})
