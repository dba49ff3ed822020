import { createHash } from 'node:crypto'
import { copyFileSync } from 'node:fs'
import { join } from 'node:path'
import * as yauzl from 'yauzl'
import { nodeGameArgs } from './game'
import { ROOT } from './run'
import { tempDir } from './temp-dir'

/** A console game that words its save lines its own way, its flush as slow as asked (test/fixtures/slow-flush-game.js). */
export const SLOW_FLUSH_GAME = join(ROOT, 'test', 'fixtures', 'slow-flush-game.js')

/** A server folder holding test/fixtures/slow-flush-game.js as `game.js`. */
export function slowFlushDir(): string {
  const dir = tempDir('sm-flush-')
  copyFileSync(SLOW_FLUSH_GAME, join(dir, 'game.js'))
  return dir
}

/** `server add` arguments for that game, a generic server, with `extra` flags and its environment. */
export function slowFlushArgs(name: string, dir: string, env: Record<string, string>, ...extra: string[]): string[] {
  return nodeGameArgs(
    name,
    dir,
    ...['--world-dir', 'world', '--ready-line', '^ready$', '--error-line', '^Unknown or incomplete command'],
    ...Object.entries(env).flatMap(([key, value]) => ['--env', `${key}=${value}`]),
    ...extra,
  )
}

/** The state (`sha256=… bytes=…`) of `region.dat` in a world archive, as the game prints it. */
export async function archivedState(file: string): Promise<string> {
  const zip = await yauzl.openPromise(file, { lazyEntries: true })
  try {
    for await (const entry of zip.eachEntry()) {
      if (entry.fileName !== 'region.dat') continue
      const chunks: Buffer[] = []
      for await (const chunk of await zip.openReadStreamPromise(entry)) chunks.push(chunk as Buffer)
      const bytes = Buffer.concat(chunks)
      return `sha256=${createHash('sha256').update(bytes).digest('hex')} bytes=${bytes.length}`
    }
  } finally {
    zip.close()
  }
  throw new Error(`${file} holds no region.dat`)
}

/** The state a line of the game prints (`World flushed: <state>`, `Stopping: <state>`). */
export const printedState = (line: string) => /sha256=\S+ bytes=\d+/.exec(line)?.[0]
