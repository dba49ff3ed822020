import { execFileSync } from 'node:child_process'
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** Fills the file system holding `file` to the last byte (with `file`). */
export function fill(file: string): void {
  const fd = openSync(file, 'w')
  try {
    for (const size of [1 << 20, 4096, 1]) {
      const chunk = Buffer.alloc(size)
      for (;;)
        try {
          writeSync(fd, chunk)
        } catch {
          break
        }
    }
  } finally {
    closeSync(fd)
  }
}

/**
 * Mounts a tmpfs of `size` (`8m`) for the describe that calls this, unmounted in its `after`;
 * the describe skips, saying so, when not root. Returns a getter of the mount point.
 */
export function tmpfsForDescribe(size: string): () => string {
  let mount: string | undefined
  before(function () {
    if (process.getuid?.() !== 0) {
      console.log('      (skipped: mounting a tmpfs for a full disk needs root)')
      this.skip()
    }
    mount = mkdtempSync(join(tmpdir(), 'sm-full-'))
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', mount])
  })
  after(() => {
    if (!mount) return
    execFileSync('umount', ['-l', mount])
    rmSync(mount, { recursive: true, force: true })
  })
  return () => mount as string
}
