/** One entry of a folder, as the file manager lists it. */
export interface FileEntry {
  readonly name: string
  /** What the entry itself is (a link is listed as a link). */
  readonly type: 'file' | 'directory' | 'link' | 'other'
  /** Bytes (a folder's own size, not its contents'). */
  readonly size: number
  /** Last modified, ISO 8601. */
  readonly mtime: string
  /** For a link: what it leads to, `outside` when out of the server directory (not followed), `missing` when to nothing. */
  readonly link?: 'file' | 'directory' | 'other' | 'outside' | 'missing'
}

export interface FileListing {
  /** The folder, relative to the server directory (`''` for the directory itself). */
  readonly path: string
  /** Folders (and links to folders) first, then the rest, each by name. */
  readonly entries: FileEntry[]
  /** More entries than a listing holds (the first ones by name are shown). */
  readonly truncated: boolean
}

/** A text file as the file manager shows it, with what a save must send back to detect a change meanwhile. */
export interface TextFile {
  readonly path: string
  readonly text: string
  readonly size: number
  readonly mtime: string
  /** SHA-256 of its bytes (hex): a save sends it as `expectedHash`. */
  readonly hash: string
}

/** What every change answers: what it did, and whether the server runs (a restart applies config changes). */
export interface FileChange {
  readonly path: string
  readonly message: string
  /** The server is starting, running or stopping: it reads its config when it starts. */
  readonly running: boolean
  /** The change was made but its fact could not be recorded (a full disk): do not repeat it. */
  readonly warning?: string
}

/** Where a file to download is, checked inside the server directory; the reader opens `file` and compares `identity`. */
export interface DownloadFile {
  readonly path: string
  /** Its real path now. */
  readonly file: string
  /** Its name, for the download. */
  readonly name: string
  readonly size: number
  readonly mtime: string
  /** `<device>:<inode>` of what was checked: an opened file that is not it was swapped in meanwhile. */
  readonly identity: string
}

declare module '../../kernel/maps' {
  interface CommandMap {
    /** A folder of a server's directory (`path` relative to it; `''` or none for the directory itself). */
    'files:list': { payload: { name: string; path?: string }; reply: FileListing }
    /** A text file (SM_ERR_FILE_NOT_TEXT for a binary one or one over files.max_text_kb: download it). */
    'files:read': { payload: { name: string; path: string }; reply: TextFile }
    /**
     * Saves a text file whole (the file_write action), atomically (a temporary file beside it,
     * renamed over it, its mode kept). `expectedHash`: the hash read (SM_ERR_FILE_CHANGED when
     * the file is not that any more); without it the file must not exist yet.
     */
    'files:write': {
      payload: { name: string; path: string; text: string; expectedHash?: string }
      reply: FileChange & {
        readonly size: number
        readonly mtime: string
        readonly hash: string
        readonly created: boolean
      }
    }
    /**
     * Puts the file at `from` (on this machine) at `path` (the file_upload action): copied to a
     * temporary file beside it, then renamed over it. An existing file only with `overwrite`.
     * `move`: `from` is the caller's to give away (a request's spooled upload), so on the same
     * file system it is moved beside `path` instead of copied: written to disk once, not twice.
     */
    'files:upload': {
      payload: { name: string; path: string; from: string; overwrite?: boolean; move?: boolean }
      reply: FileChange & { readonly size: number; readonly replaced: boolean }
    }
    /** Where a file to download is (checked inside; a read, not an action). */
    'files:download': { payload: { name: string; path: string }; reply: DownloadFile }
    /** Renames or moves an entry inside the server directory (the file_rename action); `to` must not exist. */
    'files:rename': { payload: { name: string; path: string; to: string }; reply: FileChange & { readonly to: string } }
    /** Makes a folder (the directory_create action); its parent must exist. */
    'files:mkdir': { payload: { name: string; path: string }; reply: FileChange }
    /** Deletes an entry (the file_delete action): a folder with everything in it, a link but never its target. */
    'files:delete': { payload: { name: string; path: string }; reply: FileChange & { readonly kind: string } }
  }
}
