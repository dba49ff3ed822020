import { execFileSync } from 'node:child_process'
import { chmodSync, readdirSync } from 'node:fs'
import { join } from 'node:path'

/**
 * Makes a directory and everything in it unwritable for this process and returns the undo.
 * Root ignores permission bits, so as root the immutable attribute (chattr +i) is used.
 */
export function makeReadOnly(dir: string): () => void {
  const entries = [dir, ...readdirSync(dir).map((name) => join(dir, name))]
  if (process.getuid?.() === 0) {
    execFileSync('chattr', ['+i', ...entries])
    return () => execFileSync('chattr', ['-i', ...entries])
  }
  for (const entry of entries) chmodSync(entry, 0o555)
  return () => {
    for (const entry of entries) chmodSync(entry, 0o755)
  }
}
