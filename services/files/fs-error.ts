import { isSmError, SmError, toSmError } from '../../kernel'

/**
 * A file system error as the file manager's coded error: a missing entry, a refusal by the
 * operating system, a socket opened as a file, a name too long, an entry in the way; a full
 * disk stays SM_ERR_DISK_FULL, anything else is internal (its message goes to the log, not to
 * the client).
 */
export function fsError(error: unknown, at: { server: string; path: string; action: string }): SmError {
  if (isSmError(error)) return error
  const code = (error as NodeJS.ErrnoException | null)?.code
  const shown = at.path === '' ? '.' : at.path
  switch (code) {
    case 'ENOENT':
    case 'ENOTDIR':
      return new SmError('SM_ERR_FILE_NOT_FOUND', { server: at.server, path: shown }, { cause: error })
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
      return new SmError(
        'SM_ERR_FILE_ACCESS_DENIED',
        {
          path: shown,
          action: at.action,
          reason: code === 'EROFS' ? 'the file system is read-only' : 'permission denied',
        },
        { cause: error },
      )
    case 'ENXIO':
      // Opening a socket: no file is behind it.
      return new SmError(
        'SM_ERR_FILE_WRONG_TYPE',
        { path: shown, expected: 'a file', actual: 'a special file' },
        { cause: error },
      )
    case 'ENAMETOOLONG':
      return new SmError('SM_ERR_FILE_PATH_INVALID', { path: shown, reason: 'it is too long' }, { cause: error })
    case 'ELOOP':
      // A link where none was when the path was checked (or a loop of them): not followed.
      return new SmError('SM_ERR_FILE_OUTSIDE', { server: at.server, path: shown }, { cause: error })
    case 'EEXIST':
    case 'ENOTEMPTY':
      return new SmError('SM_ERR_FILE_EXISTS', { path: shown, hint: 'Choose another name.' }, { cause: error })
    default:
      return toSmError(error)
  }
}
