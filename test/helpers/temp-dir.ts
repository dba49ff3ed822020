import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const made: string[] = []

/** A fresh directory under the system temp dir, removed after the test run. */
export function tempDir(prefix = 'sm-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  made.push(dir)
  return dir
}

after(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true })
})
