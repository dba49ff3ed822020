import { closeSync, openSync, writeSync } from 'node:fs'

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
