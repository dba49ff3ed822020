/** The file manager's contract on the bus: its commands as schemas, and the records they answer with. */
import { z } from 'zod'
import { type CommandDoors, type CommandsOf, command, defineCommands, type HttpDoor } from '../../kernel'
import { PIECE_BYTES } from '../../lib/pieces'

/** One entry of a folder, as the file manager lists it. */
export const fileEntry = z.object({
  name: z.string(),
  /** What the entry itself is (a link is listed as a link). */
  type: z.enum(['file', 'directory', 'link', 'other']),
  /** Bytes (a folder's own size, not its contents'). */
  size: z.number(),
  /** Last modified, ISO 8601. */
  mtime: z.string(),
  /** For a link: what it leads to, `outside` when out of the server directory (not followed), `missing` when to nothing. */
  link: z.enum(['file', 'directory', 'other', 'outside', 'missing']).optional(),
})
export type FileEntry = Readonly<z.output<typeof fileEntry>>

const fileListing = z.object({
  /** The folder, relative to the server directory (`''` for the directory itself). */
  path: z.string(),
  /** Folders (and links to folders) first, then the rest, each by name. */
  entries: z.array(fileEntry),
  /** More entries than a listing holds (the first ones by name are shown). */
  truncated: z.boolean(),
})
export type FileListing = Readonly<z.output<typeof fileListing>>

/** A text file as the file manager shows it, with what a save must send back to detect a change meanwhile. */
const textFile = z.object({
  path: z.string(),
  text: z.string(),
  size: z.number(),
  mtime: z.string(),
  /** SHA-256 of its bytes (hex): a save sends it as `expectedHash`. */
  hash: z.string(),
})
export type TextFile = Readonly<z.output<typeof textFile>>

/** What every change answers: what it did, and whether the server runs (a restart applies config changes). */
const fileChange = z.object({
  path: z.string(),
  message: z.string(),
  running: z.boolean().meta({
    description: 'the server runs: a game reads its config files when it starts, so a restart applies a config change',
  }),
  warning: z.string().optional().meta({
    description: 'done, but its fact is not in the event log (a full disk): do not repeat it; or see warningCode',
  }),
  warningCode: z.string().optional().meta({
    description:
      'done, and this says what else happened: SM_ERR_FILE_PATH_MOVED, a folder on its path was swapped meanwhile (for a link, say), so the path now leads elsewhere',
  }),
})
export type FileChange = Readonly<z.output<typeof fileChange>>

/** Where a file to download is, checked inside the server directory; the reader opens `file` and compares `identity`. */
const downloadFile = z.object({
  path: z.string(),
  /** Its real path now. */
  file: z.string(),
  /** Its name, for the download. */
  name: z.string(),
  size: z.number(),
  mtime: z.string(),
  /** `<device>:<inode>` of what was checked: an opened file that is not it was swapped in meanwhile. */
  identity: z.string(),
})
export type DownloadFile = Readonly<z.output<typeof downloadFile>>

/** An entry of a server's directory: the server's `name`, and the entry's `path` relative to its directory. */
const entry = z.object({ name: z.string(), path: z.string() })

/** A piece of a file, base64, and whether it is the file's last. */
const chunk = z.object({ data: z.string(), eof: z.boolean() })

/** A command that only reads on the host of its server: nothing recorded there to take in after it. */
const READS_THERE = { host: { reads: true } } as const

/** A path of a server's directory as the HTTP API takes it. */
const FILE_PATH = z
  .string()
  .max(4096)
  .meta({ description: "relative to the server's directory ('' or none: the directory itself)" })
/** The query of a door (or a route) about one file: its `path`. */
export const AT_PATH = z.object({ path: FILE_PATH })
/** The HTTP API's answers about a path (admins only). */
export const FILE_ERRORS = {
  403: "The path leads out of the server's directory through a symbolic link, or the system refused access.",
  404: "No server of that name, or nothing at that path in the server's directory.",
  422: "The request is not valid (`issues` lists what), or the path cannot be used (absolute, '..', a NUL byte), or names the wrong kind of entry.",
} as const
/** An HTTP door of the file manager: tagged Files, admins only, its path refusals said. */
const fileDoor = (door: Omit<HttpDoor, 'tags' | 'access'>): CommandDoors => ({
  http: { tags: ['Files'], access: 'admin', ...door, errors: { ...FILE_ERRORS, ...door.errors } },
})
/** The entry a change names: never the server's directory itself (`''`). */
const changedPath = z.object({ path: FILE_PATH.min(1) })

export const filesCommands = defineCommands('files', {
  /** A folder of a server's directory (`path` relative to it; `''` or none for the directory itself). */
  'files:list': command(z.object({ name: z.string(), path: z.string().optional() }), fileListing, {
    ...READS_THERE,
    ...fileDoor({
      method: 'get',
      path: '/servers/:name/files',
      right: 'files',
      name: 'list_files',
      summary: "A folder of a server's directory: folders first, then files, each by name",
      input: z.object({ path: FILE_PATH.default('') }),
      response: 'FileList',
    }),
  }),
  /** A text file (SM_ERR_FILE_NOT_TEXT for a binary one or one over files.max_text_kb: download it). */
  'files:read': command(entry, textFile, {
    ...READS_THERE,
    ...fileDoor({
      method: 'get',
      path: '/servers/:name/files/text',
      right: 'files',
      name: 'read_file',
      summary:
        'A text file, with the hash a save sends back (binary files and ones over files.max_text_kb: download them)',
      input: AT_PATH,
      response: 'TextFile',
      errors: { 422: `${FILE_ERRORS[422]} Or the file is binary or too large to show as text.` },
    }),
  }),
  /**
   * Saves a text file whole (the file_write action), atomically (a temporary file beside it,
   * renamed over it, its mode kept). `expectedHash`: the hash read (SM_ERR_FILE_CHANGED when
   * the file is not that any more); without it the file must not exist yet.
   */
  'files:write': command(
    entry.extend({ text: z.string(), expectedHash: z.string().optional() }),
    fileChange.extend({ size: z.number(), mtime: z.string(), hash: z.string(), created: z.boolean() }),
    fileDoor({
      method: 'put',
      path: '/servers/:name/files/text',
      right: 'files',
      name: 'write_file',
      summary:
        'Save a text file whole, atomically (its mode kept); expected_hash: the hash it was read with (none: a new file). Allowed while the server runs: a restart applies a config change',
      input: z.object({ path: FILE_PATH, text: z.string(), expected_hash: z.string().max(128).optional() }),
      rename: { expected_hash: 'expectedHash' },
      // As the save has always answered it.
      replyNames: { warningCode: 'warning_code' },
      response: 'FileSaved',
      errors: {
        409: 'The file changed or went away since it was read (SM_ERR_FILE_CHANGED), exists though no hash was sent, or a plugin vetoed the save.',
        422: `${FILE_ERRORS[422]} Or the text is over files.max_text_kb.`,
      },
    }),
  ),
  /**
   * Puts the file at `from` (on this machine) at `path` (the file_upload action): copied to a
   * temporary file beside it, then renamed over it. An existing file only with `overwrite`.
   * `move`: `from` is the caller's to give away (a request's spooled upload), so on the same
   * file system it is moved beside `path` instead of copied: written to disk once, not twice.
   */
  'files:upload': command(
    entry.extend({ from: z.string(), overwrite: z.boolean().optional(), move: z.boolean().optional() }),
    fileChange.extend({ size: z.number(), replaced: z.boolean() }),
    fileDoor({
      method: 'post',
      path: '/servers/:name/files/upload',
      right: 'files',
      name: 'upload_file',
      summary:
        'Upload a file (multipart/form-data: its part named file) to path; an existing one only with overwrite. Written beside it and renamed into place',
      upload: { field: 'file', to: 'from', description: 'the file (a file part)' },
      input: z.object({
        path: FILE_PATH.min(1),
        overwrite: z
          .union([z.boolean(), z.enum(['true', 'false'])])
          .transform((value) => value === true || value === 'true')
          .optional(),
      }),
      // The spooled upload is the request's, deleted when it ends: the service may take it.
      fixed: { move: true },
      status: 201,
      response: 'FileUploaded',
      errors: {
        409: 'Something is there already (send overwrite to replace a file), or a plugin vetoed the upload.',
        422: `${FILE_ERRORS[422]} Or no file part was sent.`,
      },
    }),
  ),
  /**
   * Where a file to download is (checked inside; a read, not an action). `host`: the server is on
   * another host, and `file` is a path there: read it with files:read_bytes.
   */
  'files:download': command(entry, downloadFile.extend({ host: z.string().optional() }), READS_THERE),
  /**
   * Up to PIECE_BYTES of a file files:download located, from `offset`; refused
   * (SM_ERR_FILE_REPLACED) once what is at `path` is not the file of that `identity` any more.
   */
  'files:read_bytes': command(
    entry.extend({
      identity: z.string(),
      offset: z.number().int().min(0),
      length: z.number().int().min(1).max(PIECE_BYTES),
    }),
    chunk,
    READS_THERE,
  ),
  /**
   * Receives a file for a command that takes one (`from`) on this machine, piece by piece in
   * order: the manager sends one so to the host of a server on another host. The last piece
   * answers with the path the file is at (`<data dir>/tmp/stage/<pid>/<upload>/<fileName>`), there for
   * the next command to take; removed by files:unstage, else 10 minutes after its last piece.
   */
  'files:stage': command(
    z.object({
      upload: z.uuid(),
      fileName: z
        .string()
        .min(1)
        .max(255)
        .regex(/^[^/\0]+$/)
        .refine((name) => name !== '.' && name !== '..', 'a file name, not . or ..'),
      offset: z.number().int().min(0),
      data: z.base64().max(Math.ceil(PIECE_BYTES / 3) * 4),
      last: z.boolean(),
    }),
    z.object({ bytes: z.number(), path: z.string().optional() }),
  ),
  /** Removes a received file (its command is done with it, or failed): nothing waits 10 minutes. */
  'files:unstage': command(z.object({ upload: z.uuid() }), z.undefined()),
  /** Renames or moves an entry inside the server directory (the file_rename action); `to` must not exist. */
  'files:rename': command(
    entry.extend({ to: z.string() }),
    fileChange.extend({ to: z.string() }),
    fileDoor({
      method: 'post',
      path: '/servers/:name/files/rename',
      right: 'files',
      name: 'rename_file',
      summary: 'Rename or move a file or folder inside the server directory (a link is moved as a link)',
      input: changedPath.extend({ to: FILE_PATH.min(1) }),
      response: 'FileRenamed',
      errors: { 409: "Something is there already, it is the server's directory itself, or a plugin vetoed it." },
    }),
  ),
  /** Makes a folder (the directory_create action); its parent must exist. */
  'files:mkdir': command(
    entry,
    fileChange,
    fileDoor({
      method: 'post',
      path: '/servers/:name/files/mkdir',
      right: 'files',
      name: 'make_folder',
      summary: 'Make a folder (its parent must exist)',
      input: changedPath,
      status: 201,
      response: 'FolderMade',
      errors: { 409: 'Something is there already, or a plugin vetoed it.' },
    }),
  ),
  /** Deletes an entry (the file_delete action): a folder with everything in it, a link but never its target. */
  'files:delete': command(
    entry,
    fileChange.extend({ kind: z.string() }),
    fileDoor({
      method: 'delete',
      path: '/servers/:name/files',
      right: 'files',
      name: 'delete_file',
      summary: 'Delete a file, a link (never its target) or a folder with everything in it',
      input: changedPath,
      response: 'FileDeleted',
      errors: { 409: "It is the server's directory itself, or a plugin vetoed it." },
    }),
  ),
})

declare module '../../kernel/maps' {
  interface CommandMap extends CommandsOf<typeof filesCommands> {}
}
