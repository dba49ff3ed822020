import { reasonOf, SmError } from '../../kernel'

/** The SQLite result code of a driver error (`SQLITE_BUSY`, ...), if it has one. */
export function sqliteCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' && code.startsWith('SQLITE_') ? code : undefined
}

export function isBusy(error: unknown): boolean {
  const code = sqliteCode(error)
  return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED'
}

/** Translates a driver error into the coded error a user can act on. */
export function toDatabaseError(error: unknown, path: string): SmError {
  if (error instanceof SmError) return error
  const reason = reasonOf(error)
  switch (sqliteCode(error)) {
    case 'SQLITE_NOTADB':
    case 'SQLITE_CORRUPT':
      return new SmError('SM_ERR_DB_CORRUPT', { path, reason }, { cause: error })
    case 'SQLITE_READONLY':
      return new SmError('SM_ERR_DB_READONLY', { path }, { cause: error })
    case 'SQLITE_CANTOPEN':
    case 'SQLITE_PERM':
    case 'SQLITE_AUTH':
      return new SmError('SM_ERR_DATA_DIR_UNUSABLE', { path, reason }, { cause: error })
    case 'SQLITE_FULL':
      return new SmError('SM_ERR_DB_FULL', { path }, { cause: error })
    case 'SQLITE_BUSY':
    case 'SQLITE_LOCKED':
      return new SmError('SM_ERR_DB_BUSY', { path, ms: 0 }, { cause: error })
    default:
      return new SmError('SM_ERR_DB_IO', { path, reason }, { cause: error })
  }
}
