import { renameSync, rmSync, writeFileSync } from 'node:fs'

/**
 * Replaces the file at `path` with `data` whole or not at all: written to `<path>.tmp` beside it,
 * then renamed over it, so a crash leaves the old file or the new one. A write that fails (a full
 * disk) removes its temporary file and throws.
 */
export function writeFileWhole(path: string, data: string | Uint8Array, mode?: number): void {
  const temporary = `${path}.tmp`
  try {
    writeFileSync(temporary, data, mode === undefined ? undefined : { mode })
    renameSync(temporary, path)
  } catch (error) {
    rmSync(temporary, { force: true })
    throw error
  }
}
