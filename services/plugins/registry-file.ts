import { existsSync, readFileSync } from 'node:fs'
import { type Logger, reasonOf, SmError } from '../../kernel'
import { writeFileWhole } from '../../lib/whole-file'
import type { StoredRecord } from './registry-projection'

/**
 * Writes plugins.json, the registry's mirror for people to read: every known plugin (not the
 * missing ones) without what only the loader needs. Left alone when it says this already.
 */
export function writeRegistryFile(file: string, records: readonly StoredRecord[], logger: Logger): void {
  const registry = Object.fromEntries(
    records
      .filter((r) => r.state !== 'missing')
      .map(({ name, hash: _hash, hookFailures: _failures, lastHookError: _last, ...rest }) => [name, rest]),
  )
  const text = `${JSON.stringify(registry, null, 2)}\n`
  try {
    // Every boot reconciles; most change nothing, and then the file is left alone.
    if (existsSync(file) && readFileSync(file, 'utf8') === text) return
    writeFileWhole(file, text)
  } catch (error) {
    // A mirror for people to read: the registry itself is in the database, so carry on.
    const failure = new SmError('SM_ERR_DATA_DIR_UNUSABLE', { path: file, reason: reasonOf(error) }, { cause: error })
    logger.warn(failure.message, { code: failure.code })
  }
}
