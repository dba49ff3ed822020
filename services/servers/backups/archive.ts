import {
  chmodSync,
  createReadStream,
  createWriteStream,
  mkdirSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs'
import { dirname, extname, isAbsolute, join, normalize, relative, sep } from 'node:path'
import { type Readable, Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import * as yauzl from 'yauzl'
import * as yazl from 'yazl'
import { SmError } from '../../../kernel'
import { useNativeCrc32 } from './native-crc32'

useNativeCrc32()

/** One file (or directory) to put in an archive: where it is, its name inside, and how many bytes of it. */
export interface ArchiveEntry {
  readonly path: string
  readonly name: string
  /** Bytes to take from the start of the file (a hot backup truncates to the listed length); 0 for a directory. */
  readonly size: number
  readonly mtime: Date
  /** Its permission bits, recorded in the archive (the zip's external attributes) for a restore to put back. */
  readonly mode?: number
  /** A directory: recorded (with its mode) as an empty directory entry, nothing read. */
  readonly directory?: boolean
}

/**
 * How an extraction sets the modes of what it writes (a restore, an import): an entry's recorded
 * mode is kept, bounded by KEPT_BITS; an entry with none (an archive made elsewhere, or before
 * modes were recorded) gets 0644 / 0755 bounded by `within`, the mode of the folder the tree
 * replaces. Without it, the process's umask decides (the data directory's 0077: private).
 */
export interface KeptModes {
  readonly within: number
}

/** The bits an extracted entry may get: no setuid, setgid or sticky bit, nothing writable by others. */
const KEPT_BITS = 0o775

export interface Progress {
  readonly bytes: number
  readonly totalBytes: number
  readonly files: number
  readonly totalFiles: number
}

/** Entries extracted at once. */
const EXTRACT_CONCURRENCY = 4

/** Already compressed (LevelDB tables and logs hold zlib/snappy blocks; images, archives): stored, not deflated. */
const STORED = new Set([
  '.ldb',
  '.log',
  '.png',
  '.jpg',
  '.jpeg',
  '.zip',
  '.mcpack',
  '.mcworld',
  '.mcaddon',
  '.gz',
  '.xz',
])

/**
 * Every regular file under `dir`, and with `directories` every directory, named relative to it
 * with '/' separators, with their modes (symlinks are not followed).
 */
export function listTree(dir: string, options: { directories?: boolean } = {}): ArchiveEntry[] {
  const entries: ArchiveEntry[] = []
  const walk = (at: string) => {
    for (const item of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, item.name)
      const name = relative(dir, path).split(sep).join('/')
      if (item.isDirectory()) {
        if (options.directories) {
          const stat = statSync(path)
          entries.push({ path, name, size: 0, mtime: stat.mtime, mode: stat.mode & 0o777, directory: true })
        }
        walk(path)
      } else if (item.isFile()) {
        const stat = statSync(path)
        entries.push({ path, name, size: stat.size, mtime: stat.mtime, mode: stat.mode & 0o777 })
      }
    }
  }
  walk(dir)
  return entries.sort((a, b) => a.name.localeCompare(b.name))
}

/** The permission bits of a file, or undefined when it cannot be read (it is not recorded then). */
export function modeOf(path: string): number | undefined {
  try {
    return statSync(path).mode & 0o777
  } catch {
    return undefined
  }
}

/**
 * Streams `entries` into a zip at `target`, written as `target.part` and renamed when complete,
 * so an interrupted backup never looks like a finished one. Memory stays constant: each file is
 * read as a stream, exactly `size` bytes of it (a file shorter than that fails the archive).
 * An aborted `signal` stops it at once with the signal's reason, the `.part` removed.
 */
export async function writeZip(
  target: string,
  entries: readonly ArchiveEntry[],
  onProgress?: (progress: Progress) => void,
  signal?: AbortSignal,
): Promise<{ bytes: number; files: number }> {
  signal?.throwIfAborted()
  mkdirSync(dirname(target), { recursive: true })
  const part = `${target}.part`
  const zip = new yazl.ZipFile()
  for (const entry of entries)
    if (entry.directory) zip.addEmptyDirectory(entry.name, { mtime: entry.mtime, ...typedMode(0o040000, entry.mode) })
  const files = entries.filter((e) => !e.directory)
  const totalBytes = files.reduce((sum, e) => sum + e.size, 0)
  let bytes = 0
  let done = 0
  const failed = new Promise<never>((_, reject) => zip.on('error', reject))
  for (const entry of files) {
    // Level 0 stores the entry (method 0): deflating random bytes only costs time and grows them.
    const options = {
      mtime: entry.mtime,
      compressionLevel: STORED.has(extname(entry.name).toLowerCase()) ? 0 : 6,
      ...typedMode(0o100000, entry.mode),
    }
    if (entry.size === 0) {
      zip.addBuffer(Buffer.alloc(0), entry.name, options)
      done++
      continue
    }
    zip.addReadStreamLazy(entry.name, { ...options, size: entry.size }, (callback) => {
      // A library seam: yazl's types ask for a stream beside an error, and it reads none then.
      if (signal?.aborted) return callback(signal.reason, undefined as never)
      // No `start`: read from the beginning without seeking, so a file that cannot seek (a FIFO) works too.
      const stream = createReadStream(entry.path, { end: entry.size - 1 })
      const counted = counter((n) => {
        bytes += n
        onProgress?.({ bytes, totalBytes, files: done, totalFiles: files.length })
      })
      counted.on('end', () => {
        done++
        // Counted once it is read whole: the last report says every file.
        onProgress?.({ bytes, totalBytes, files: done, totalFiles: files.length })
      })
      stream.on('error', (error) => counted.destroy(error))
      // A file that cannot be read (gone, a directory, an I/O error) fails the archive: the zip's
      // output ends with the error, so the write below rejects and its .part goes (yazl itself
      // listens to no error of an entry's stream, which would be thrown at the process).
      counted.on('error', (error) => (zip.outputStream as Readable).destroy(error))
      // Cancelled: a read that waits (a FIFO, a slow disk) hands nothing more to the destroyed
      // archive. Only while this file is read: a listener left per file would pile up on the
      // signal (Node warns of a leak at the eleventh: MaxListenersExceededWarning).
      if (signal) {
        const abort = () => stream.destroy()
        signal.addEventListener('abort', abort, { once: true })
        stream.once('close', () => signal.removeEventListener('abort', abort))
      }
      callback(null, stream.pipe(counted))
    })
  }
  zip.end()
  try {
    await Promise.race([pipeline(zip.outputStream, createWriteStream(part, { mode: 0o600 }), { signal }), failed])
    signal?.throwIfAborted()
    renameSync(part, target)
  } catch (error) {
    rmSync(part, { force: true })
    // Cancelled: say so with the cancel's own reason, not the stream's AbortError.
    throw signal?.aborted ? signal.reason : error
  }
  onProgress?.({ bytes, totalBytes, files: files.length, totalFiles: files.length })
  return { bytes, files: files.length }
}

/** yazl's `mode` (file type and permission bits, the external attributes' upper half) for a known mode. */
function typedMode(type: number, mode: number | undefined): { mode?: number } {
  return mode === undefined ? {} : { mode: type | (mode & 0o777) }
}

/** The permission bits an entry recorded, when a Unix zipper made it (the upper byte of `versionMadeBy` is 3). */
function recordedMode(entry: yauzl.Entry): number | undefined {
  if (entry.versionMadeBy >> 8 !== 3) return undefined
  const mode = entry.externalFileAttributes >>> 16
  return mode === 0 ? undefined : mode & 0o777
}

/** Why an entry name cannot be extracted into a directory, or undefined. */
export function unsafeEntryName(name: string): string | undefined {
  if (name.includes('\0')) return 'it holds a NUL'
  if (isAbsolute(name) || /^[A-Za-z]:/.test(name) || name.startsWith('\\')) return 'it is an absolute path'
  const normal = normalize(name.replace(/\\/g, '/'))
  if (normal === '..' || normal.startsWith(`..${sep}`) || normal.split(sep).includes('..'))
    return 'it leads outside the directory'
  return undefined
}

/**
 * The file entries of a zip (directories left out), with the sizes they declare. An entry that
 * would land outside the directory it is extracted into, or write through a link, throws
 * UnsafeEntryError, whether yauzl refuses its name while reading the central directory or our own
 * check does: a symbolic link (extracted, a `worlds` link would lead every later write elsewhere),
 * or an entry under a name the archive also holds as a file. Anything else unreadable throws as is.
 */
export async function readZipEntries(file: string): Promise<{ name: string; size: number }[]> {
  const zip = await yauzl.openPromise(file, { lazyEntries: true, strictFileNames: false })
  try {
    const names: { name: string; size: number }[] = []
    const all: string[] = []
    for await (const entry of zip.eachEntry()) {
      const problem = unsafeEntryName(entry.fileName) ?? (isLink(entry) ? 'it is a symbolic link' : undefined)
      if (problem) throw new UnsafeEntryError(entry.fileName, problem)
      all.push(entry.fileName)
      if (entry.fileName.endsWith('/')) continue
      names.push({ name: entry.fileName, size: entry.uncompressedSize })
    }
    throughFile(all, names)
    return names
  } catch (error) {
    const refused = /^(invalid relative path|absolute path|invalid characters in fileName): (.*)$/.exec(
      (error as Error).message ?? '',
    )
    throw refused ? new UnsafeEntryError(refused[2] ?? '', refused[1] ?? '') : error
  } finally {
    zip.close()
  }
}

/** Whether a zip entry is a symbolic link: its Unix mode (the high half of its external attributes) says so. */
function isLink(entry: yauzl.Entry): boolean {
  return ((entry.externalFileAttributes >>> 16) & 0o170000) === 0o120000
}

/** Throws for an entry that would be written inside another entry that is a file (`worlds`, then `worlds/x`). */
function throughFile(all: readonly string[], files: readonly { name: string }[]): void {
  const key = (name: string) => normalize(name.replace(/\\/g, '/')).split(sep).filter(Boolean).join('/')
  const asFiles = new Set(files.map((f) => key(f.name)))
  for (const name of all) {
    const parts = key(name).split('/')
    for (let i = 1; i < parts.length; i++) {
      const parent = parts.slice(0, i).join('/')
      if (asFiles.has(parent))
        throw new UnsafeEntryError(name, `it would be written inside '${parent}', which the archive holds as a file`)
    }
  }
}

/** Whether a zip holds a Java program: a manifest (META-INF/MANIFEST.MF) or a class file. */
export async function isJar(file: string): Promise<boolean> {
  let zip: yauzl.ZipFile
  try {
    zip = await yauzl.openPromise(file, { lazyEntries: true, strictFileNames: false })
  } catch {
    return false
  }
  try {
    for await (const entry of zip.eachEntry())
      if (entry.fileName === 'META-INF/MANIFEST.MF' || entry.fileName.endsWith('.class')) return true
    return false
  } catch {
    return false
  } finally {
    zip.close()
  }
}

/**
 * Extracts a zip into `dir` (which must not exist yet), refusing any entry that would land
 * outside it before writing anything. Files are streamed: memory stays constant. An aborted
 * `signal` stops it with the signal's reason (what was extracted stays, for the caller to remove).
 * `maxBytes`: the bytes written are counted as they are inflated (a zip's declared sizes are its
 * word), and past it the extraction stops with SM_ERR_ARCHIVE_TOO_LARGE (again, the rest stays for
 * the caller to remove).
 * With `modes`, files and directories (and `dir`) get their recorded modes (see KeptModes);
 * directories last, so a read-only one is filled first, and always with their owner's rwx, so
 * the manager can replace them later.
 */
export async function extractZip(
  file: string,
  dir: string,
  onProgress?: (progress: Progress) => void,
  signal?: AbortSignal,
  { maxBytes = Number.POSITIVE_INFINITY, modes }: { maxBytes?: number; modes?: KeptModes } = {},
): Promise<number> {
  signal?.throwIfAborted()
  const entries = await readZipEntries(file)
  const totalBytes = entries.reduce((sum, e) => sum + e.size, 0)
  mkdirSync(dir, { recursive: true })
  const zip = await yauzl.openPromise(file, { lazyEntries: true, strictFileNames: false })
  const made = new Set<string>([dir])
  /** The modes directories get at the end: recorded ones, else the default bounded by `within`. */
  const dirModes = new Map<string, number>()
  const makeDir = (path: string) => {
    if (made.has(path)) return
    mkdirSync(path, { recursive: true })
    // Those mkdir made on the way too: each gets the default until an entry of its own says.
    for (let at = path; at.startsWith(`${dir}${sep}`) && !made.has(at); at = dirname(at)) {
      made.add(at)
      if (modes) dirModes.set(at, 0o755 & modes.within)
    }
  }
  // Always its owner's read and write: a file the manager cannot read back would fail every later backup.
  const fileMode = (entry: yauzl.Entry) =>
    modes ? ((recordedMode(entry) ?? 0o644 & modes.within) & KEPT_BITS) | 0o600 : 0
  let bytes = 0
  let files = 0
  // A few entries at once: writing one file overlaps reading and inflating the next.
  const inFlight = new Set<Promise<void>>()
  try {
    for await (const entry of zip.eachEntry()) {
      signal?.throwIfAborted()
      const target = join(dir, normalize(entry.fileName.replace(/\\/g, '/')))
      if (entry.fileName.endsWith('/')) {
        // Named as its files' dirname() names it (join keeps the entry's trailing slash).
        const path = target.replace(/[/\\]+$/, '')
        makeDir(path)
        const mode = recordedMode(entry)
        if (modes && mode !== undefined) dirModes.set(path, mode)
        continue
      }
      makeDir(dirname(target))
      const stream = await zip.openReadStreamPromise(entry)
      const counted = counter((n) => {
        bytes += n
        if (bytes > maxBytes) return tooLarge(file, `more than ${megabytes(maxBytes)} MB`, maxBytes)
        onProgress?.({ bytes, totalBytes, files, totalFiles: entries.length })
      })
      const mode = fileMode(entry)
      // Written private, then given its mode: the umask would take bits off it.
      const out = createWriteStream(target, { mode: modes ? 0o600 : 0o644 })
      const job: Promise<void> = pipeline(stream, counted, out, { signal }).then(() => {
        if (modes) chmodSync(target, mode)
        files++
        inFlight.delete(job)
        // Counted once it is whole: the last report says every file, an empty one counts too.
        onProgress?.({ bytes, totalBytes, files, totalFiles: entries.length })
      })
      job.catch(() => {}) // awaited below; a failure stops the extraction there
      inFlight.add(job)
      if (inFlight.size >= EXTRACT_CONCURRENCY) await Promise.race(inFlight)
    }
    await Promise.all(inFlight)
    if (modes) {
      // The deepest first; the top takes the mode of the folder it replaces.
      const dirs = [...dirModes].sort(([a], [b]) => b.length - a.length)
      for (const [path, mode] of [...dirs, [dir, modes.within] as const]) chmodSync(path, (mode & KEPT_BITS) | 0o700)
    }
  } catch (error) {
    throw signal?.aborted ? signal.reason : error
  } finally {
    zip.close()
  }
  return files
}

/** A pass-through stream that reports how many bytes went by; an error `onBytes` returns ends it. */
function counter(onBytes: (n: number) => unknown): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      const problem = onBytes(chunk.length)
      if (problem instanceof Error) done(problem)
      else done(null, chunk)
    },
  })
}

/** Whole megabytes (MiB), rounded up: what the setting servers.max_unpacked_mb counts in. */
export function megabytes(bytes: number): number {
  return Math.ceil(bytes / MIB)
}

/** SM_ERR_ARCHIVE_TOO_LARGE for `file`, which unpacks to `size` (words) against a limit of `maxBytes`. */
export function tooLarge(file: string, size: string, maxBytes: number): SmError {
  return new SmError('SM_ERR_ARCHIVE_TOO_LARGE', { file, size, limitMb: Math.floor(maxBytes / MIB) })
}

const MIB = 1024 * 1024

export class UnsafeEntryError extends Error {
  constructor(
    readonly entry: string,
    readonly reason: string,
  ) {
    super(`the archive entry '${entry}' cannot be extracted: ${reason}`)
  }
}
