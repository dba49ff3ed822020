import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const made: string[] = []

/** A fresh directory under the system temp dir, removed at the end of the test run (test/helpers/run-end.ts). */
export function tempDir(prefix = 'sm-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  made.push(dir)
  return dir
}

/** Every directory tempDir() has made in this run. */
export function madeDirs(): readonly string[] {
  return made
}
