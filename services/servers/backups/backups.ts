import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs'
import { basename, dirname, join, posix, resolve } from 'node:path'
import { type BusScope, isDiskFull, isSmError, performAction, reasonOf, SmError, toSmError } from '../../../kernel'
import { ownProcess, pidExists } from '../../../lib/process-identity'
import {
  ACTIVE,
  type BackupFile,
  type BackupKind,
  type BackupReply,
  type BackupSkip,
  type BackupType,
  type CopyMethod,
  type ServerRecord,
} from '../contract'
import type { ServerControl } from '../control'
import { settled } from '../control-checks'
import { withPowerLock } from '../power-lock'
import { gameProfile } from '../profiles'
import { serverSetting } from '../server-settings'
import { configFiles, leftOut, wholeDirectory, worldFolder } from '../world'
import { type ArchiveEntry, extractZip, listTree, modeOf, type Progress, writeZip } from './archive'
import { carryOver, checkArchive, configWhat, worldWhat } from './backup-checks'
import { withSaveHold, withSavingOff } from './hot-backup'
import { MAX_UNPACKED_SETTING, unpackLimit } from './unpack-limits'

const NAME = /^(world|config)_(\d{8}-\d{6}-\d{3})(?:_[a-z-]+)?\.(mcworld|zip)$/
/** A safety copy's name: what a restore or import replaced (`world_<time>_pre-restore.mcworld`). */
const SAFETY = /_pre-[a-z-]+\.(mcworld|zip)$/

type Get = (key: string) => Promise<unknown>

/**
 * World and config backups of the game servers, their restore, retention, export and import.
 * Archives are zips streamed with constant memory (a bedrock world is a `.mcworld`). One policy,
 * whoever asks: a running server is backed up (and exported) hot where its profile can (Bedrock's
 * save hold/query/resume, or a profile's off/flush/on commands) and never stops; else it is
 * stopped, copied and started again, with a warning. A world the game is writing is never copied.
 * Cancelling the task the work runs in stops it: a backup's archive is removed (and a held world
 * resumed at once), a restore or import ends before its swap with the world left as it was.
 */
export class Backups {
  constructor(
    private readonly bus: BusScope,
    private readonly control: ServerControl,
    private readonly setting: Get,
    /** Progress of the task this runs in. */
    private readonly report: (percent: number, message: string) => void = () => {},
    /** The signal of the task this runs in: aborted when it is cancelled. */
    private readonly signal: () => AbortSignal | undefined = () => undefined,
  ) {}

  async folder(server: ServerRecord): Promise<string> {
    return join(String(await this.setting('paths.backups')), server.name)
  }

  async list(server: ServerRecord): Promise<BackupFile[]> {
    const folder = await this.folder(server)
    if (!existsSync(folder)) return []
    return readdirSync(folder)
      .flatMap((file) => {
        const match = NAME.exec(file)
        if (!match) return []
        const stat = statSync(join(folder, file))
        return [{ file, kind: match[1] as BackupKind, bytes: stat.size, createdAt: stampToIso(match[2] as string) }]
      })
      .sort((a, b) => b.file.slice(b.file.indexOf('_')).localeCompare(a.file.slice(a.file.indexOf('_'))))
  }

  /** The backup action: world, config or both; the method is `#method`'s (`stopStart`: stopped even where hot is possible). */
  async backup(server: ServerRecord, type: BackupType, options: { stopStart?: boolean } = {}): Promise<BackupReply> {
    if (!['world', 'config', 'all'].includes(type))
      throw new SmError('SM_ERR_SERVER_COMMAND_INVALID', {
        server: server.name,
        reason: `'${type}' is not a backup type (world, config or all)`,
      })
    const outcome = await performAction(this.bus, {
      before: 'before_backup',
      after: 'after_backup',
      payload: { serverName: server.name, backupType: type },
      perform: () => this.#locked(server, 'backup', () => this.#backup(server, type, options)),
      message: (reply) =>
        `Backed up '${server.name}' (${reply.method}): ${reply.files.map((f) => f.file).join(', ')}.${reply.skipped
          .map((s) => ` Skipped the ${s.kind} backup: ${s.reason}.`)
          .join('')}`,
    })
    return settled(outcome, server.name, 'The backup of')
  }

  async #backup(server: ServerRecord, type: BackupType, options: { stopStart?: boolean }): Promise<BackupReply> {
    await this.#sweep(server)
    // Known before the server is stopped: nothing to back up never kicks its players.
    const { kinds, skipped } = this.#parts(server, type)
    const { method, warning } = await this.#method(server, options.stopStart, 'a backup')
    const files: BackupFile[] = []
    const run = async () => {
      try {
        for (const kind of kinds)
          files.push(kind === 'world' ? await this.#world(server, method === 'hot') : await this.#config(server))
      } catch (error) {
        // A backup that fails writes nothing: the archives it finished before the failure go too.
        for (const file of files) rmSync(join(await this.folder(server), file.file), { force: true })
        throw error
      }
      // Before the server is started again: a start that fails after a whole backup fails the
      // command, but the backup is done, so it is kept and retention counts it.
      return this.#prune(server)
    }
    const pruned = method === 'stop-start' ? await this.control.stopped(server, 'a backup', run) : await run()
    const whole = kinds.includes('world') && wholeDirectory(server)
    const said = [
      warning,
      whole &&
        `'${server.name}' has no world folder (--world-dir), so its whole directory was backed up, its logs left out.`,
    ]
      .filter(Boolean)
      .join(' ')
    return { files, method, pruned, skipped, ...(said && { warning: said }) }
  }

  /**
   * The kinds a backup of `type` archives. `all` is everything the server has: a part it does not
   * have is skipped (and said), and only a server with neither is SM_ERR_BACKUP_NOTHING. A `world`
   * or `config` backup of something the server does not have is SM_ERR_BACKUP_NOTHING.
   */
  #parts(server: ServerRecord, type: BackupType): { kinds: BackupKind[]; skipped: BackupSkip[] } {
    const asked: BackupKind[] = type === 'all' ? ['world', 'config'] : [type]
    const missing = asked.map((kind) => ({ kind, what: this.#missing(server, kind) }))
    const kinds = missing.filter((m) => m.what === undefined).map((m) => m.kind)
    if (kinds.length === 0)
      throw new SmError('SM_ERR_BACKUP_NOTHING', {
        server: server.name,
        what: missing.map((m) => m.what).join(' and no '),
      })
    const skipped = missing.flatMap(({ kind, what }) =>
      what === undefined ? [] : [{ kind, reason: `the server '${server.name}' has no ${what}` }],
    )
    return { kinds, skipped }
  }

  /** What the server lacks for a backup of `kind` (as SM_ERR_BACKUP_NOTHING names it), or undefined. */
  #missing(server: ServerRecord, kind: BackupKind): string | undefined {
    if (kind === 'config') {
      const names = configFiles(server)
      return names.some((name) => existsSync(join(server.dir, name))) ? undefined : configWhat(server)
    }
    const world = worldFolder(server)
    return world && existsSync(world) ? undefined : worldWhat(world)
  }

  /**
   * How a world is copied now, for a backup or an export (`work`): `cold` when the server is not
   * running; else `hot` where its profile has a hot backup, `backup.hot` is on and it is ready
   * for commands (`running`), unless `stopStart`; else `stop-start`, with a warning when the
   * server is why (no hot backup; hot-backup commands without a done line, whose flush's end
   * cannot be told). Never a copy of a world the game is writing, nor one taken on a timer.
   */
  async #method(
    server: ServerRecord,
    stopStart: boolean | undefined,
    work: string,
  ): Promise<{ method: CopyMethod; warning?: string }> {
    const { status } = await this.control.status(server)
    if (!ACTIVE.includes(status)) return { method: 'cold' }
    if (stopStart === true) return { method: 'stop-start' }
    const stopped = (why: string) => ({
      method: 'stop-start' as const,
      warning: `'${server.name}' was stopped for ${work} and started again: ${why}`,
    })
    // The running game's profile: an edit of its hot backup reaches it at its next start.
    const profile = this.control.runningProfile(server)
    if (!profile.hotBackup)
      return stopped(
        `its profile (${profile.name}) has no hot backup. A server added with --hot-backup 'off;flush;on' (its console commands that stop saving, write the world, and save again) keeps running.`,
      )
    const protocol = profile.hotBackup
    if (protocol.kind === 'commands' && protocol.done === undefined)
      return stopped(
        `its hot-backup commands have no line that says the flush is done, so a copy could be taken before the world is written. Give it one (server edit ${server.name} --hot-backup-done '<regular expression>'; java's is '^Saved the game') and it keeps running.`,
      )
    if (status !== 'running') return stopped(`it was ${status}, not ready for the commands of a hot backup.`)
    const hot = (await serverSetting(server, 'backup.hot', this.setting)) === true
    return { method: hot ? 'hot' : 'stop-start' }
  }

  async #world(server: ServerRecord, hot: boolean, suffix = ''): Promise<BackupFile> {
    const target = join(await this.folder(server), `world_${stamp()}${suffix}.${gameProfile(server).worldArchive}`)
    await this.#archiveWorld(server, target, hot, 'backup')
    return this.#describe(target, 'world')
  }

  /**
   * Streams the world into `target`: the whole directory; hot, through the profile's protocol
   * while the server runs: Bedrock's exactly the files and lengths it lists under save hold, or
   * the whole directory between the `off`/`flush` and the `on` commands.
   */
  async #archiveWorld(server: ServerRecord, target: string, hot: boolean, operation: 'backup' | 'export') {
    const world = worldFolder(server)
    if (!world || !existsSync(world))
      throw new SmError('SM_ERR_BACKUP_NOTHING', { server: server.name, what: worldWhat(world) })
    const progress = this.#progress(server, operation, basename(target))
    const signal = this.signal()
    await this.#failing(server, `world ${operation}`, async () => {
      const protocol = this.control.runningProfile(server).hotBackup
      // Listed when the copy begins: after the flush, for a hot one.
      // Directories and files with their modes, for a restore to put back.
      // A whole server directory (no world folder) leaves its logs out.
      const whole = () =>
        writeZip(
          target,
          listTree(world, { directories: true }).filter((e) => !wholeDirectory(server) || !leftOut(e.name)),
          progress,
          signal,
        )
      if (!hot || !protocol) return whole()
      if (protocol.kind === 'commands')
        return this.control.withHold(server, (game) => withSavingOff(game, protocol, whole, signal))
      const level = basename(world)
      return this.control.withHold(server, (game) =>
        withSaveHold(
          game,
          level,
          (listed) => {
            const entries: ArchiveEntry[] = listed.map(({ path, length }) => ({
              path: join(dirname(world), path),
              name: path.slice(level.length + 1),
              size: length,
              mtime: new Date(),
              mode: modeOf(join(dirname(world), path)),
            }))
            const directories = listTree(world, { directories: true }).filter((e) => e.directory)
            return writeZip(target, [...directories, ...entries], progress, signal)
          },
          signal,
        ),
      )
    })
  }

  async #config(server: ServerRecord, suffix = ''): Promise<BackupFile> {
    // Each under its path in the server directory (`config/settings.json`), as a restore puts it back.
    const entries = configFiles(server)
      .map((name) => ({ path: join(server.dir, name), name: posix.normalize(name.replace(/\\/g, '/')) }))
      .filter(({ path }) => existsSync(path))
      .map(({ path, name }) => {
        const stat = statSync(path)
        return { path, name, size: stat.size, mtime: stat.mtime, mode: stat.mode & 0o777 }
      })
    if (entries.length === 0)
      throw new SmError('SM_ERR_BACKUP_NOTHING', { server: server.name, what: configWhat(server) })
    const target = join(await this.folder(server), `config_${stamp()}${suffix}.zip`)
    await this.#failing(server, 'config backup', () => writeZip(target, entries, undefined, this.signal()))
    return this.#describe(target, 'config')
  }

  /** Keeps the newest `retention.backups` of each kind, and drops those older than `retention.backup_days` (0: no age limit). */
  async #prune(server: ServerRecord, keep?: number): Promise<string[]> {
    // The server's own retention, else the global one.
    const count = keep ?? Number(await serverSetting(server, 'retention.backups', this.setting))
    const days = Number(await serverSetting(server, 'retention.backup_days', this.setting))
    const folder = await this.folder(server)
    const pruned: string[] = []
    const all = await this.list(server)
    // Each kind, and its safety copies (`_pre-restore`, `_pre-import`) apart: a restore's copy of
    // what it replaced never pushes a real backup out of the retention.
    const pool = (b: BackupFile) => `${b.kind}${SAFETY.test(b.file) ? ' safety' : ''}`
    for (const kind of ['world', 'config', 'world safety', 'config safety']) {
      all
        .filter((b) => pool(b) === kind)
        .forEach((backup, index) => {
          const old = days > 0 && Date.now() - Date.parse(backup.createdAt) > days * 86_400_000
          if (index >= count || old) {
            rmSync(join(folder, backup.file), { force: true })
            pruned.push(backup.file)
          }
        })
    }
    return pruned
  }

  /**
   * Deletes one backup: only a name `list` gives (never a path out of the server's backup
   * folder), while no backup, restore or export of the server runs; a `servers:backup_deleted` fact.
   */
  async delete(server: ServerRecord, file: string): Promise<{ deleted: string }> {
    const path = await this.#backupPath(server, file)
    return this.#locked(server, 'delete a backup', async () => {
      await this.#failing(server, 'backup deletion', async () => rmSync(path))
      await this.bus.emit('servers:backup_deleted', { name: server.name, file: basename(path) })
      return { deleted: basename(path) }
    })
  }

  /** The prune_backups action: retention applied now (or keeping `keep`). */
  async prune(server: ServerRecord, keep?: number): Promise<{ pruned: string[] }> {
    const outcome = await performAction(this.bus, {
      before: 'before_prune_backups',
      after: 'after_prune_backups',
      payload: { serverName: server.name },
      perform: async () => ({
        pruned: await this.#locked(server, 'prune', async () => [
          ...(await this.#sweep(server)),
          ...(await this.#prune(server, keep)),
        ]),
      }),
      message: (r) => (r.pruned.length ? `Removed ${r.pruned.join(', ')}.` : 'Nothing to remove.'),
    })
    return settled(outcome, server.name, 'Pruning the backups of')
  }

  /**
   * Removes what backups and restores that did not finish left, and rolls back a world swap cut
   * in half. Called holding `backup.lock`: then no live process writes an archive or swaps the
   * world (one such action per server at a time), so every `.part` is a dead writer's. A world
   * restore's `<world>.incoming-<pid>` and `<world>.outgoing-<pid>` of a dead PID are removed,
   * except that an outgoing world with no world in place (killed between the two renames) is put
   * back. Returns what it did, by name.
   */
  async #sweep(server: ServerRecord): Promise<string[]> {
    const done: string[] = []
    const folder = await this.folder(server)
    if (existsSync(folder))
      for (const file of readdirSync(folder).filter((f) => f.endsWith('.part') && NAME.test(f.slice(0, -5)))) {
        rmSync(join(folder, file), { force: true })
        done.push(file)
      }
    const files = this.control.files(server.name)
    const exported = files.readExport()
    if (exported?.part.endsWith('.part')) {
      rmSync(exported.part, { force: true })
      done.push(`${exported.part} (a world export that did not finish)`)
    }
    files.writeExport(undefined)
    const world = worldFolder(server)
    const parent = world && dirname(world)
    if (!world || !parent || !existsSync(parent)) return done
    for (const name of readdirSync(parent)) {
      const left = /^(.*)\.(incoming|outgoing)-(\d+)$/.exec(name)
      if (!left || left[1] !== basename(world) || pidExists(Number(left[3]))) continue
      if (left[2] === 'outgoing' && !existsSync(world)) {
        renameSync(join(parent, name), world)
        done.push(`${name} (put back as the world: a restore stopped between its two renames)`)
      } else {
        rmSync(join(parent, name), { recursive: true, force: true })
        done.push(name)
      }
    }
    return done
  }

  /**
   * At the manager's start: removes what interrupted backups left (their `.part` archives),
   * unless a backup of the server is under way in another process right now.
   */
  async recover(server: ServerRecord): Promise<string[]> {
    try {
      return await this.#locked(server, 'recovery', () => this.#sweep(server))
    } catch (error) {
      if (isSmError(error) && error.code === 'SM_ERR_SERVER_BUSY') return []
      throw error
    }
  }

  /** The restore action: a world or config backup back in place, after a safety backup of what is there now. */
  async restore(
    server: ServerRecord,
    file: string,
    options: { stopStart?: boolean } = {},
  ): Promise<{ restored: string; safety: string }> {
    const path = await this.#backupPath(server, file)
    const kind = NAME.exec(basename(path))?.[1] as BackupKind
    const outcome = await performAction(this.bus, {
      before: 'before_restore',
      after: 'after_restore',
      payload: { serverName: server.name, restoreType: kind, file: basename(path) },
      perform: () => this.#locked(server, 'restore', () => this.#restore(server, path, kind, options)),
      message: (r) => `Restored ${r.restored} into '${server.name}' (the state before is in ${r.safety}).`,
    })
    return settled(outcome, server.name, 'The restore of')
  }

  async #restore(server: ServerRecord, path: string, kind: BackupKind, options: { stopStart?: boolean }) {
    await this.#sweep(server)
    await checkArchive(server, path, kind, await this.#maxUnpacked())
    const restore = async () => {
      const safety =
        kind === 'world' ? await this.#world(server, false, '_pre-restore') : await this.#config(server, '_pre-restore')
      if (kind === 'world') await this.#replaceWorld(server, path)
      else await this.#replaceConfig(server, path)
      return { restored: basename(path), safety: safety.file }
    }
    return this.#whileStopped(server, options, 'a restore', restore)
  }

  /**
   * world_export: the world as an archive at `file`, which must not exist (a directory: a file
   * in it named for the server, `.mcworld` for Bedrock, `.zip` otherwise). A running server is
   * copied as a backup would be (`#method`).
   */
  async export(
    server: ServerRecord,
    file: string,
    options: { stopStart?: boolean } = {},
  ): Promise<{ file: string; bytes: number; method: CopyMethod; warning?: string }> {
    let target = resolve(String(file ?? ''))
    if (existsSync(target) && statSync(target).isDirectory())
      target = join(target, `${server.name}.${gameProfile(server).worldArchive}`)
    if (existsSync(target)) throw new SmError('SM_ERR_BACKUP_EXISTS', { file: target })
    const outcome = await performAction(this.bus, {
      before: 'before_world_export',
      after: 'after_world_export',
      payload: { serverName: server.name, file: target },
      perform: () =>
        this.#locked(server, 'export', async () => {
          await this.#sweep(server)
          const { method, warning } = await this.#method(server, options.stopStart, 'an export')
          // Its .part is outside the data directory: recorded, for the sweep after a kill -9.
          const files = this.control.files(server.name)
          files.ensureDir()
          files.writeExport({
            part: `${target}.part`,
            holder: ownProcess(),
            since: new Date().toISOString(),
          })
          const write = () => this.#archiveWorld(server, target, method === 'hot', 'export')
          try {
            if (method === 'stop-start') await this.control.stopped(server, 'an export', write)
            else await write()
          } finally {
            files.writeExport(undefined)
          }
          return { file: target, bytes: statSync(target).size, method, ...(warning && { warning }) }
        }),
      message: (r) => `Exported the world of '${server.name}' to ${r.file} (${r.method}).`,
    })
    return settled(outcome, server.name, 'The world export of')
  }

  /** world_import: a world archive (a zip: `.mcworld`, `.zip`) becomes the server's world, after a safety backup. */
  async import(
    server: ServerRecord,
    file: string,
    options: { stopStart?: boolean } = {},
  ): Promise<{ imported: string; safety: string | undefined }> {
    const source = resolve(String(file ?? ''))
    if (!existsSync(source)) throw new SmError('SM_ERR_BACKUP_INVALID', { file: source, reason: 'it does not exist' })
    const outcome = await performAction(this.bus, {
      before: 'before_world_import',
      after: 'after_world_import',
      payload: { serverName: server.name, file: source },
      perform: () =>
        this.#locked(server, 'import', async () => {
          await this.#sweep(server)
          await checkArchive(server, source, 'world', await this.#maxUnpacked())
          return this.#whileStopped(server, options, 'an import', async () => {
            const world = worldFolder(server)
            const safety =
              world && existsSync(world) ? (await this.#world(server, false, '_pre-import')).file : undefined
            await this.#replaceWorld(server, source)
            return { imported: source, safety }
          })
        }),
      message: (r) => `Imported ${r.imported} as the world of '${server.name}'.`,
    })
    return settled(outcome, server.name, 'The world import of')
  }

  // ---- helpers ----

  async #backupPath(server: ServerRecord, file: string): Promise<string> {
    const name = String(file ?? '')
    // Only a name from `server backups`: never a path that could reach outside the folder.
    if (name !== basename(name) || !NAME.test(name))
      throw new SmError('SM_ERR_BACKUP_NOT_FOUND', { server: server.name, file: name })
    const path = join(await this.folder(server), name)
    if (!existsSync(path)) throw new SmError('SM_ERR_BACKUP_NOT_FOUND', { server: server.name, file: name })
    return path
  }

  /** Extracts next to the world, then swaps it in with two renames: a failure leaves the old world. */
  async #replaceWorld(server: ServerRecord, archive: string): Promise<void> {
    const world = worldFolder(server)
    if (!world)
      throw new SmError('SM_ERR_BACKUP_NOTHING', { server: server.name, what: 'world directory setting (--world-dir)' })
    const incoming = `${world}.incoming-${process.pid}`
    const outgoing = `${world}.outgoing-${process.pid}`
    rmSync(incoming, { recursive: true, force: true })
    const signal = this.signal()
    await this.#failing(server, 'restore', async () => {
      try {
        // The modes the archive recorded; the world's own (else its folder's) bounds those it did not.
        const within = modeOf(world) ?? modeOf(dirname(world)) ?? 0o755
        await extractZip(archive, incoming, this.#progress(server, 'restore', basename(archive)), signal, {
          maxBytes: await this.#maxUnpacked(),
          modes: { within },
        })
        // Cancelled before the swap: the world stays as it was. After it, the restore is done.
        signal?.throwIfAborted()
      } catch (error) {
        rmSync(incoming, { recursive: true, force: true })
        throw error
      }
      // A whole directory keeps what its backups leave out (its logs) across the restore.
      if (wholeDirectory(server)) carryOver(world, incoming)
      if (existsSync(world)) renameSync(world, outgoing)
      renameSync(incoming, world)
      rmSync(outgoing, { recursive: true, force: true })
    })
  }

  async #replaceConfig(server: ServerRecord, archive: string): Promise<void> {
    const incoming = join(server.dir, `.config-incoming-${process.pid}`)
    const signal = this.signal()
    await this.#failing(server, 'restore', async () => {
      try {
        await extractZip(archive, incoming, undefined, signal, {
          maxBytes: await this.#maxUnpacked(),
          modes: { within: modeOf(server.dir) ?? 0o755 },
        })
        signal?.throwIfAborted()
        // Only the server's config files (the archive was checked to hold nothing else), each where it belongs.
        for (const name of configFiles(server)) {
          const from = join(incoming, name)
          if (!existsSync(from) || !statSync(from).isFile()) continue
          mkdirSync(dirname(join(server.dir, name)), { recursive: true })
          renameSync(from, join(server.dir, name))
        }
      } finally {
        rmSync(incoming, { recursive: true, force: true })
      }
    })
  }

  /** servers.max_unpacked_mb, in bytes. */
  async #maxUnpacked(): Promise<number> {
    return unpackLimit(await this.setting(MAX_UNPACKED_SETTING))
  }

  /** Runs `fn` with the server stopped: refused while it runs unless `stopStart`, then it is started again. */
  async #whileStopped<T>(
    server: ServerRecord,
    options: { stopStart?: boolean },
    action: string,
    fn: () => Promise<T>,
  ): Promise<T> {
    const running = ACTIVE.includes((await this.control.status(server)).status)
    if (!running) return fn()
    if (!options.stopStart) throw new SmError('SM_ERR_BACKUP_SERVER_RUNNING', { server: server.name, action })
    return this.control.stopped(server, action, fn)
  }

  /** One backup, restore, export or import per server at a time, across processes. */
  #locked<T>(server: ServerRecord, action: string, fn: () => Promise<T>): Promise<T> {
    const files = this.control.files(server.name)
    files.ensureDir()
    return withPowerLock(join(files.dir, 'backup.lock'), server.name, action, fn)
  }

  async #failing<T>(server: ServerRecord, action: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn()
    } catch (error) {
      if (isSmError(error)) throw error
      // A full disk says so (free space), whichever file it stopped.
      if (isDiskFull(error)) throw toSmError(error)
      throw new SmError('SM_ERR_BACKUP_FAILED', { server: server.name, action, reason: reasonOf(error) })
    }
  }

  #describe(path: string, kind: BackupKind): BackupFile {
    const file = basename(path)
    return { file, kind, bytes: statSync(path).size, createdAt: stampToIso(NAME.exec(file)?.[2] ?? '') }
  }

  /** Progress as `servers:backup_progress` events, at most one per percent. */
  #progress(server: ServerRecord, operation: 'backup' | 'restore' | 'export', file: string) {
    let last = -1
    let whole = false
    return (p: Progress) => {
      const percent = p.totalBytes ? Math.floor((p.bytes / p.totalBytes) * 100) : 100
      // One per percent, and the one that counts every file (the bytes reach 100% before the last file is whole).
      const done = p.files === p.totalFiles
      if (percent === last && (!done || whole)) return
      last = percent
      whole = done
      this.report(percent, `${operation} ${file}`)
      void this.bus.emit('servers:backup_progress', { serverName: server.name, operation, file, ...p, percent })
    }
  }
}

function stamp(date = new Date()): string {
  const p = (n: number, w = 2) => String(n).padStart(w, '0')
  return `${date.getUTCFullYear()}${p(date.getUTCMonth() + 1)}${p(date.getUTCDate())}-${p(date.getUTCHours())}${p(date.getUTCMinutes())}${p(date.getUTCSeconds())}-${p(date.getUTCMilliseconds(), 3)}`
}

function stampToIso(s: string): string {
  const m = /^(\d{4})(\d\d)(\d\d)-(\d\d)(\d\d)(\d\d)-(\d{3})$/.exec(s)
  return m ? `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}.${m[7]}Z` : ''
}
