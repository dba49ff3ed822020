import { defineErrors, type ErrorMapOf, spec } from '../../kernel/error-catalogue'

/** The file manager's error codes (docs/errors.md). */
export const filesErrors = defineErrors('files', {
  SM_ERR_FILE_STAGE_BROKEN: spec<{ file: string; reason: string }>({
    status: 409,
    exit: 75,
    when: 'A file sent to another host in pieces (an upload for a server there) arrived with a piece missing.',
    message: (p) =>
      `'${p.file}' did not arrive whole on this host: ${p.reason}. Nothing was done with it; send it again.`,
  }),
  SM_ERR_FILE_PATH_INVALID: spec<{ path: string; reason: string }>({
    status: 422,
    exit: 64,
    when: "A file manager path that is absolute, holds '..' or a NUL byte, is too long, or cannot be used for what was asked.",
    message: (p) =>
      `The path '${p.path}' cannot be used: ${p.reason}. Give a path relative to the server directory, such as 'server.properties' or 'worlds/level'.`,
  }),
  SM_ERR_FILE_OUTSIDE: spec<{ server: string; path: string }>({
    status: 403,
    exit: 77,
    when: "A file manager path that leads out of the server's directory through a symbolic link (itself or a folder on the way).",
    message: (p) =>
      `'${p.path}' leads out of the directory of '${p.server}' through a symbolic link, and the file manager only reaches inside it. Nothing was read or changed; work on the link's target where it is, or replace the link with the files themselves.`,
  }),
  SM_ERR_FILE_NOT_FOUND: spec<{ server: string; path: string }>({
    status: 404,
    exit: 66,
    when: "A file manager path that does not exist in the server's directory (or a link there that points to nothing).",
    message: (p) =>
      `'${p.path}' does not exist in the directory of '${p.server}'. List its folder to see what is there.`,
  }),
  SM_ERR_FILE_WRONG_TYPE: spec<{ path: string; expected: string; actual: string }>({
    status: 422,
    exit: 65,
    when: 'A file manager operation on the wrong kind of entry: a folder to read as text, a file to list.',
    message: (p) => `'${p.path}' is ${p.actual}, not ${p.expected}. Choose ${p.expected} for this.`,
  }),
  SM_ERR_FILE_NOT_TEXT: spec<{ path: string; reason: string }>({
    status: 422,
    exit: 65,
    when: 'A file asked for as text that is binary or larger than files.max_text_kb.',
    message: (p) =>
      `'${p.path}' cannot be shown as text: ${p.reason}. Download it instead (and upload it back to replace it).`,
  }),
  SM_ERR_FILE_REPLACED: spec<{ path: string; reason: string }>({
    status: 409,
    exit: 75,
    when: 'A download whose file was replaced or removed after it was located (a download is never a mix of two files).',
    message: (p) =>
      `'${p.path}' ${p.reason} while it was being downloaded, so the download stopped. Download it again to get it as it is now.`,
  }),
  SM_ERR_FILE_SOURCE_MISSING: spec<{ from: string; reason: string }>({
    status: 422,
    exit: 66,
    when: 'A file to upload (the `from` of files:upload) that is not a readable file on the machine of the one asking.',
    message: (p) =>
      `The file to upload, '${p.from}', cannot be read: ${p.reason}. Give the path of a file on this machine (a server on another host gets it sent there).`,
  }),
  SM_ERR_FILE_PATH_MOVED: spec<{ path: string }>({
    status: 409,
    exit: 75,
    when: "A warning, not a failure: a save was written, and then a folder on its path was swapped (for a link, say), so the path leads elsewhere now (a save's warning_code).",
    message: (p) =>
      `'${p.path}' was saved in the folder that was checked and opened, but a folder on its path was swapped since (for a link, say): the path now leads elsewhere, not to what was saved. List the folder to see what is there now.`,
  }),
  SM_ERR_FILE_CHANGED: spec<{ path: string; reason: string }>({
    status: 409,
    exit: 75,
    when: 'A text file save whose file changed (or went away) since it was read; a download whose file was replaced while it was opened.',
    message: (p) =>
      `'${p.path}' ${p.reason} since it was read, so nothing was done. Open it again to see it as it is now (copy your edit first), then make your change there.`,
  }),
  SM_ERR_FILE_EXISTS: spec<{ path: string; hint: string }>({
    status: 409,
    exit: 73,
    when: 'A new file, folder, upload or rename target that already exists.',
    message: (p) => `'${p.path}' already exists. ${p.hint}`,
  }),
  SM_ERR_FILE_ROOT_REFUSED: spec<{ server: string; action: string }>({
    status: 409,
    exit: 77,
    when: "The file manager was asked to delete, rename or replace the server's directory itself.",
    message: (p) =>
      `The directory of '${p.server}' itself cannot be ${p.action} from the file manager. Choose an entry inside it; to delete the whole server use 'server-manager server remove ${p.server} --delete-files'.`,
    web: (p) =>
      `The directory of '${p.server}' itself cannot be ${p.action} from the file manager. Choose an entry inside it; to delete the whole server, remove it (with its files) from its page.`,
  }),
  SM_ERR_FILE_ACCESS_DENIED: spec<{ path: string; action: string; reason: string }>({
    status: 403,
    exit: 77,
    when: "The operating system refused the manager's user access to a file in a server's directory (permissions, a read-only file system).",
    message: (p) =>
      `'${p.path}' could not be ${p.action}: ${p.reason}. Give the user the manager runs as access to it (chmod, chown), or change it on the machine itself.`,
  }),
  SM_ERR_FILE_CHANGE_CANCELLED: spec<{ server: string; action: string; path: string; by: string; reason: string }>({
    status: 409,
    exit: 1,
    when: 'A before_* hook vetoed a file manager change (a write, upload, rename, new folder or delete).',
    message: (p) =>
      `The ${p.action} of '${p.path}' on '${p.server}' was cancelled by '${p.by}': ${p.reason}. Nothing was changed.`,
  }),
})

declare module '../../kernel/error-catalogue' {
  interface ErrorMap extends ErrorMapOf<typeof filesErrors> {}
}
