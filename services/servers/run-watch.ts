import { existsSync, type FSWatcher, mkdirSync, readdirSync, watch } from 'node:fs'
import { join } from 'node:path'
import { reasonOf } from '../../kernel/errors'

/**
 * The files of a run directory a run's status is read from (supervisor/run-files.ts): its state,
 * journal, spec, supervisor's socket, power lock, intent and hold. Its console, logs and samples
 * change all the time and say nothing of its status.
 */
const STATUS_FILES = /^(state\.json|status\.jsonl|spec\.json|supervisor\.sock|power\.lock|intent\.json|hold\.json)$/

/**
 * Tells when a server's run files change, whoever changes them (fs.watch, inotify on Linux): a
 * run started by another process of the data directory (a command's own manager, a plugin
 * command that runs locally) is heard here although nothing of it reaches this process's bus.
 * One watch on `<data dir>/servers/` sees run directories made and removed, one on each run
 * directory sees its status files change (its callback also runs, and returns, for each write of
 * a running server's console and samples). A directory that cannot be watched (the system's
 * limit, a file system without notifications) is not `watched`, and what depends on it is read
 * every time; a watch lost is said, with its reason (`lost`).
 */
export class RunWatch {
  readonly #servers: string
  /** Told a server's run files may have changed (no name: any server's). */
  readonly #moved: (name?: string) => void
  readonly #onLost: (reason: string) => void
  #root: FSWatcher | undefined
  readonly #dirs = new Map<string, FSWatcher>()

  constructor(dataDir: string, moved: (name?: string) => void, lost: (reason: string) => void) {
    this.#servers = join(dataDir, 'servers')
    this.#moved = moved
    this.#onLost = lost
  }

  /** Starts watching (the manager, from its start); where it cannot, nothing is `watched`. */
  start(): void {
    if (this.#root) return
    try {
      mkdirSync(this.#servers, { recursive: true, mode: 0o700 })
      const root = watch(this.#servers, { persistent: false }, (_, name) => {
        // The folder itself removed: its watch says so once, then nothing more, even once it is made again.
        if (!existsSync(this.#servers)) return this.#lost(`${this.#servers} was removed`)
        if (name) return this.#made(name)
        // Something changed there, nobody says what: every directory is watched again.
        this.#followAll()
        this.#moved()
      })
      root.on('error', (error) => this.#lost(reasonOf(error)))
      this.#root = root
      this.#followAll()
    } catch (error) {
      this.#lost(reasonOf(error))
    }
  }

  /**
   * Whether every change of the server's status files is told from now on: its run directory is
   * watched, or there is none yet and its making would be told.
   */
  watched(name: string): boolean {
    if (!this.#root) return false
    return this.#dirs.has(name) || !existsSync(join(this.#servers, name))
  }

  /** Stops watching (the manager is stopping). */
  close(): void {
    this.#root?.close()
    this.#root = undefined
    for (const dir of this.#dirs.values()) dir.close()
    this.#dirs.clear()
  }

  #followAll(): void {
    for (const entry of readdirSync(this.#servers, { withFileTypes: true }))
      if (entry.isDirectory()) this.#follow(entry.name)
  }

  /** A run directory was made, removed or renamed: watched again first, then told, so no change falls between. */
  #made(name: string): void {
    this.#follow(name)
    this.#moved(name)
  }

  #follow(name: string): void {
    // A directory removed and made again is another one: its old watch tells nothing more.
    this.#dirs.get(name)?.close()
    this.#dirs.delete(name)
    try {
      const dir = watch(join(this.#servers, name), { persistent: false }, (_, file) => {
        if (!file || STATUS_FILES.test(file)) this.#moved(name)
      })
      dir.on('error', (error) => {
        dir.close()
        if (this.#dirs.get(name) === dir) this.#dirs.delete(name)
        this.#moved(name)
        this.#onLost(`the run directory of '${name}': ${reasonOf(error)}`)
      })
      this.#dirs.set(name, dir)
    } catch (error) {
      // Gone already: `watched` says so (no directory, none to watch). Else it cannot be watched.
      if (existsSync(join(this.#servers, name))) this.#onLost(`the run directory of '${name}': ${reasonOf(error)}`)
    }
  }

  /** The watch itself failed: nothing is watched any more, every server is told it moved, and it is said. */
  #lost(reason: string): void {
    this.close()
    this.#moved()
    this.#onLost(reason)
  }
}
