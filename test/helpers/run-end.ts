import { randomUUID } from 'node:crypto'
import { rmSync } from 'node:fs'
import { findLeaks, killAndWait } from './leaks'
import { madeDirs } from './temp-dir'

/**
 * Marks every process this run starts: children inherit it, and the run's end looks for it.
 * Set when setup.ts loads, before any test starts anything.
 */
const RUN_ID = randomUUID()
process.env.SM_TEST_RUN = RUN_ID
const MARKER = `SM_TEST_RUN=${RUN_ID}`

const cleanups: (() => void | Promise<void>)[] = []

/** Runs `cleanup` at the end of the test run, before it looks for processes left behind. */
export function atRunEnd(cleanup: () => void | Promise<void>): void {
  cleanups.push(cleanup)
}

/**
 * The end of the test run (setup.ts's root afterAll): the cleanups helpers promised, then every
 * process the run started that still runs is killed and the run fails naming it ("a test run
 * leaves no process behind"), then the temp dirs are removed (after the processes in them are
 * gone, or they would write into deleted directories).
 */
export async function runEnd(): Promise<void> {
  const problems: string[] = []
  for (const cleanup of cleanups.splice(0))
    try {
      await cleanup()
    } catch (error) {
      problems.push(`a cleanup failed: ${(error as Error).message}`)
    }
  if (process.platform === 'linux') {
    const leaks = findLeaks(madeDirs(), MARKER)
    if (leaks.length > 0) {
      problems.push(
        `${leaks.length} process(es) were still running at the end of the run (now killed):\n` +
          leaks.map((leak) => `  PID ${leak.pid}: ${leak.command}\n    (${leak.because})`).join('\n'),
      )
      await killAndWait(leaks.map((leak) => leak.pid)).catch((error: Error) => problems.push(error.message))
    }
  } else console.log(`(not Linux: the check for processes left behind is skipped, it reads /proc)`)
  for (const dir of madeDirs())
    try {
      rmSync(dir, { recursive: true, force: true })
    } catch (error) {
      problems.push(`the temp dir ${dir} could not be removed: ${(error as Error).message}`)
    }
  if (problems.length > 0) throw new Error(`the test run left things behind:\n${problems.join('\n')}`)
}
