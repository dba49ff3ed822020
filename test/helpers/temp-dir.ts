import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const made: string[] = []
let removedAtRunEnd = false

/** Called by setup.ts, whose root hooks remove these dirs at the end of the run and check for processes left in them. */
export function removeAtRunEnd(): void {
  removedAtRunEnd = true
}

/** A fresh directory under the system temp dir, removed at the end of the test run (test/helpers/run-end.ts). */
export function tempDir(prefix = 'sm-test-'): string {
  if (!removedAtRunEnd)
    throw new Error(
      'tempDir() without the root hooks that remove its dirs: run mocha with --require ./dist/test/helpers/setup.js',
    )
  const dir = mkdtempSync(join(tmpdir(), prefix))
  made.push(dir)
  return dir
}

/** Every directory tempDir() has made in this run. */
export function madeDirs(): readonly string[] {
  return made
}

/** Every directory tempDir() has made since the last call, forgotten now (the run's end removes them). */
export function forgetMadeDirs(): string[] {
  return made.splice(0)
}
