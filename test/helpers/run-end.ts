import { randomUUID } from 'node:crypto'
import { rmSync } from 'node:fs'
import type { Context, Suite } from 'mocha'
import { findLeaks, killAndWait, type Leak } from './leaks'
import { forgetMadeDirs, madeDirs } from './temp-dir'

/**
 * Marks every process this run starts: children inherit it, and the run's end looks for it.
 * Set when setup.ts loads, before any test starts anything: once per process, so each worker of
 * mocha's parallel mode has its own, and its checks never see another worker's processes.
 */
const RUN_ID = randomUUID()
process.env.SM_TEST_RUN = RUN_ID
const MARKER = `SM_TEST_RUN=${RUN_ID}`

type Cleanup = () => void | Promise<void>

let inTest = false
const ofTest: Cleanup[] = []
const ofHook: Cleanup[] = []
const ofRun: Cleanup[] = []

/**
 * Runs `cleanup` (once) when what it cleans up is no longer used: after the test that asked for
 * it (or whose beforeEach did); asked for in a before() hook, after the top-level describe it ran
 * in (whose tests share it); and in any case at the end of the run. Cleanups run last first, so
 * a manager started on a data dir is stopped before the dir's game servers are killed (a running
 * manager would replace their supervisors).
 */
export function afterItsUser(cleanup: Cleanup): void {
  let done: Promise<void> | undefined
  const once = () => {
    done ??= (async () => cleanup())()
    return done
  }
  ;(inTest ? ofTest : ofHook).push(once)
  ofRun.push(once)
}

const ofProcess: Cleanup[] = []

/**
 * Runs `cleanup` when this process is done with tests, before the check that nothing is left:
 * at the end of a serial run. A worker of mocha's parallel mode runs many files and is ended
 * when the run is over; what it keeps for all of them (the shared Chromium) ends with it.
 */
export function atProcessEnd(cleanup: Cleanup): void {
  ofProcess.push(cleanup)
}

async function runAll(cleanups: Cleanup[], problems: string[]): Promise<void> {
  for (const cleanup of cleanups.splice(0).reverse())
    try {
      await cleanup()
    } catch (error) {
      problems.push(`a cleanup failed: ${(error as Error).message}`)
    }
}

async function runOrThrow(cleanups: Cleanup[]): Promise<void> {
  const problems: string[] = []
  await runAll(cleanups, problems)
  if (problems.length > 0) throw new Error(problems.join('\n'))
}

/** Mocha's root hooks (setup.ts): a root beforeEach runs before a test's own hooks, a root afterEach after them. */
export const rootHooks = {
  beforeEach(): void {
    inTest = true
  },

  async afterEach(this: Context): Promise<void> {
    inTest = false
    const ofSuite = ofHook.splice(0)
    // The first test after a before() hook runs in that hook's describe, or in one nested in it.
    let top: Suite | undefined = this.currentTest?.parent
    while (top?.parent && !top.parent.root) top = top.parent
    if (ofSuite.length > 0 && top) top.afterAll('clean up what its before() hooks started', () => runOrThrow(ofSuite))
    await runOrThrow(ofTest)
  },

  /**
   * The end of the run: the cleanups still due, then every process the run started that still
   * runs is killed and the run fails naming it ("a test run leaves no process behind"), then the
   * temp dirs are removed (after the processes in them are gone, or they would write into
   * deleted directories). In mocha's parallel mode a root afterAll runs at the end of each file,
   * in the worker that ran it: each file then leaves nothing behind, and the next file the worker
   * runs starts with no dirs of its own.
   */
  async afterAll(this: Context): Promise<void> {
    // Killing what was left can wait for slow deaths; the check itself takes milliseconds.
    this.timeout(60_000)
    const problems: string[] = []
    await runAll(ofRun, problems)
    // Not a worker of the parallel run (mocha sets MOCHA_WORKER_ID there): this is the run's end.
    if (process.env.MOCHA_WORKER_ID === undefined) await runAll(ofProcess, problems)
    if (process.platform === 'linux') {
      // Again after killing: a leaked manager may have started a supervisor in the meantime.
      const leaks: Leak[] = []
      for (let round = 0; ; round++) {
        const found = findLeaks(madeDirs(), MARKER)
        if (found.length === 0) break
        if (round === 5) {
          problems.push(`processes kept coming back: ${found.map((leak) => leak.pid).join(', ')}`)
          break
        }
        leaks.push(...found)
        await killAndWait(found.map((leak) => leak.pid)).catch((error: Error) => problems.push(error.message))
      }
      if (leaks.length > 0)
        problems.push(
          `${leaks.length} process(es) were still running at the end of the run (now killed):\n` +
            leaks.map((leak) => `  PID ${leak.pid}: ${leak.command}\n    (${leak.because})`).join('\n'),
        )
    } else console.log('(not Linux: the check for processes left behind is skipped, it reads /proc)')
    for (const dir of forgetMadeDirs())
      try {
        rmSync(dir, { recursive: true, force: true })
      } catch (error) {
        problems.push(`the temp dir ${dir} could not be removed: ${(error as Error).message}`)
      }
    if (problems.length > 0) throw new Error(`the test run left things behind:\n${problems.join('\n')}`)
  },
}
