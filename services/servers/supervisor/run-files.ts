import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileSize, lastLines } from '../../../lib/log-tail'
import { endsWithNewline } from '../../../lib/series-lines'
import { writeFileWhole } from '../../../lib/whole-file'
import type { SamplingSpec } from '../../metrics/contract'
import type { ServerStatus, StartMode } from '../contract'
import type { GameProfile, ProfileName } from '../profiles'

export type { ServerStatus, StartMode } from '../contract'

/** A process and what identifies it beyond its PID (lib/process-identity). */
export interface ProcessRef {
  readonly pid: number
  readonly identity: string | undefined
}

/** The game process of a run: its identity, when it started, and where its console output began. */
export interface GameRef extends ProcessRef {
  readonly startedAt: string
  readonly logOffset: number
}

/** `state.json`: the server's status now, written whole (temp file + rename) at every change. */
export interface RunState {
  readonly status: ServerStatus
  /** ISO time of the last status change. */
  readonly since: string
  readonly supervisor: ProcessRef | undefined
  readonly game: GameRef | undefined
  readonly mode: StartMode
  /** Crash restarts in the current streak (reset after a run longer than the minimum uptime). */
  readonly restarts: number
  readonly exitCode: number | null
  readonly signal: string | null
  /** Why the last change happened, in words (`exited with code 1`, `start failed: ENOENT`). */
  readonly reason: string | undefined
}

/**
 * One line of `status.jsonl`, the journal of status changes. Supervisors run without a manager,
 * so they cannot write the event log; whichever manager or CLI process next looks at the server
 * turns the entries it has not seen into `server_status_change` and `server_crash` facts.
 */
export interface StatusEntry {
  readonly seq: number
  readonly at: string
  readonly status: ServerStatus
  readonly previous: ServerStatus
  readonly reason?: string
  readonly exitCode?: number | null
  readonly signal?: string | null
  /** On a crash: the restarts so far in this streak, and whether the policy restarts it. */
  readonly restarts?: number
  readonly willRestart?: boolean
  /** On an end nobody saw: the last time the run is known to have lived (its console log's last write). */
  readonly lastKnown?: string
}

/** What the supervisor runs and how: written by the starter, read by the supervisor. */
export interface RunSpec {
  readonly name: string
  readonly profile: ProfileName
  /** The profile in effect (the server's own fields over its profile's); a spec from before profiles has none. */
  readonly game?: GameProfile
  readonly cwd: string
  readonly command: string
  readonly args: readonly string[]
  readonly env: Readonly<Record<string, string>>
  readonly stopCommand: string
  readonly mode: StartMode
  readonly stopTimeoutMs: number
  readonly termTimeoutMs: number
  readonly restart: {
    readonly enabled: boolean
    readonly maxRestarts: number
    readonly minUptimeMs: number
    readonly delayMs: number
  }
  readonly log: { readonly maxBytes: number; readonly keep: number }
  /** How the supervisor samples the game's resource use (`metrics.*` settings); none: it does not. */
  readonly metrics?: MetricsSpec
  /**
   * Set when this start is the policy's restart of a crash found after the fact (its supervisor
   * was gone too): the crash restarts in its streak, this one included.
   */
  readonly crashRestart?: number
}

/** How often a supervisor samples its game, and how long it keeps the samples (`metrics.jsonl`). */
export type MetricsSpec = SamplingSpec

/**
 * `hold.json`: a world held for a hot backup (Bedrock's `save hold`, or a profile's `off`
 * commands), who holds it, and the commands that resume it. Written by the supervisor before it
 * holds the world, removed once the resume is acknowledged; a supervisor that adopts the game
 * resumes a recorded hold whose holder is gone, with the commands recorded.
 */
export interface HoldRecord {
  readonly holder: ProcessRef
  readonly since: string
  /** The console commands that resume the world (none recorded: a Bedrock hold, `save resume`). */
  readonly resume?: readonly string[]
}

/**
 * `intent.json`: work that stopped a running server and must start it again (a backup, restore,
 * import or update with `--stop`), written before the stop and removed after the start. One left
 * behind by a process that is gone is finished by the next look at the server: it is started.
 */
export interface IntentRecord {
  /** What stopped it: `a restore`, `an update`... */
  readonly work: string
  readonly holder: ProcessRef
  readonly since: string
}

/**
 * `export.json`: a world export under way, naming its `.part` (at a path of the user's choosing,
 * outside the data directory), so that one cut short by a dead process is removed by the next
 * sweep, as a backup's `.part` is.
 */
export interface ExportRecord {
  readonly part: string
  readonly holder: ProcessRef
  readonly since: string
}

/** UNIX socket paths are limited to 107 bytes on Linux. */
export const MAX_SOCKET_PATH = 107

/** The host agent's files, `<data dir>/agent/`: its socket, its claim lock and its own log. */
export class AgentFiles {
  constructor(
    /** The data directory whose games it supervises (their run directories are `servers/<name>/` in it). */
    readonly dataDir: string,
  ) {}

  /** The agent of the data directory a run directory is in. */
  static ofRun(files: RunFiles): AgentFiles {
    return new AgentFiles(dirname(dirname(files.dir)))
  }
  get dir(): string {
    return join(this.dataDir, 'agent')
  }
  get servers(): string {
    return join(this.dataDir, 'servers')
  }
  get socket(): string {
    return join(this.dir, 'agent.sock')
  }
  /** Held while an agent claims the socket, so two started at once never both serve. */
  get listenLock(): string {
    return join(this.dir, 'listen.lock')
  }
  /** Which process is the agent (PID and identity, since when, its version), while it serves. */
  get record(): string {
    return join(this.dir, 'agent.json')
  }
  /** The agent's own output (a run's own lines go to its `supervisor.log`). */
  get log(): string {
    return join(this.dir, 'agent.log')
  }

  ensureDir(): void {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 })
  }

  readRecord(): AgentRecord | undefined {
    return readJson<AgentRecord>(this.record)
  }

  writeRecord(record: AgentRecord | undefined): void {
    if (record) writeJson(this.record, record)
    else rmSync(this.record, { force: true })
  }
}

/** `agent.json`: the agent that serves (a record whose process is gone, or another one now, is stale). */
export interface AgentRecord extends ProcessRef {
  readonly startedAt: string
  readonly version: string
}

/** The files of one server's run directory, `<data dir>/servers/<name>/`. */
export class RunFiles {
  constructor(readonly dir: string) {}

  static of(dataDir: string, name: string): RunFiles {
    return new RunFiles(join(dataDir, 'servers', name))
  }
  get socket(): string {
    return join(this.dir, 'supervisor.sock')
  }
  get fifo(): string {
    return join(this.dir, 'console.in')
  }
  get log(): string {
    return join(this.dir, 'console.log')
  }
  get state(): string {
    return join(this.dir, 'state.json')
  }
  get journal(): string {
    return join(this.dir, 'status.jsonl')
  }
  get spec(): string {
    return join(this.dir, 'spec.json')
  }
  get powerLock(): string {
    return join(this.dir, 'power.lock')
  }
  get ingestLock(): string {
    return join(this.dir, 'ingest.lock')
  }
  /** Held by a supervisor while it claims the socket, so two starting at once never both serve. */
  get listenLock(): string {
    return join(this.dir, 'listen.lock')
  }
  get supervisorLog(): string {
    return join(this.dir, 'supervisor.log')
  }
  get hold(): string {
    return join(this.dir, 'hold.json')
  }
  get intent(): string {
    return join(this.dir, 'intent.json')
  }
  get export(): string {
    return join(this.dir, 'export.json')
  }
  /**
   * `{ at }`: the manager's player tracker followed who is online on this server until at least
   * `at` (written while someone is online). A later manager closes there the sessions of players
   * who left while nobody followed the game.
   */
  get playersSeen(): string {
    return join(this.dir, 'players-seen.json')
  }
  /** The game's resource samples (a rolling series: `metrics.downsampled.jsonl` beside it holds the older ones). */
  get metrics(): string {
    return join(this.dir, 'metrics.jsonl')
  }

  ensureDir(): void {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 })
  }

  readState(): RunState | undefined {
    return readJson<RunState>(this.state)
  }

  writeState(state: RunState): void {
    writeJson(this.state, state)
  }

  readSpec(): RunSpec | undefined {
    return readJson<RunSpec>(this.spec)
  }

  writeSpec(spec: RunSpec): void {
    writeJson(this.spec, spec)
  }

  /** Until when the manager's tracker followed who is online (`playersSeen`), if it wrote it. */
  readPlayersSeen(): string | undefined {
    const at = readJson<{ at?: unknown }>(this.playersSeen)?.at
    return typeof at === 'string' && Number.isFinite(Date.parse(at)) ? at : undefined
  }

  writePlayersSeen(at: string): void {
    writeJson(this.playersSeen, { at })
  }

  readHold(): HoldRecord | undefined {
    return readJson<HoldRecord>(this.hold)
  }

  writeHold(hold: HoldRecord | undefined): void {
    if (hold) writeJson(this.hold, hold)
    else rmSync(this.hold, { force: true })
  }

  readExport(): ExportRecord | undefined {
    return readJson<ExportRecord>(this.export)
  }

  writeExport(record: ExportRecord | undefined): void {
    if (record) writeJson(this.export, record)
    else rmSync(this.export, { force: true })
  }

  readIntent(): IntentRecord | undefined {
    return readJson<IntentRecord>(this.intent)
  }

  writeIntent(intent: IntentRecord | undefined): void {
    if (intent) writeJson(this.intent, intent)
    else rmSync(this.intent, { force: true })
  }

  /** Journal entries after `seq`, oldest first (a torn last line, from a crash mid-write, is skipped). */
  readJournal(afterSeq = 0): StatusEntry[] {
    let text: string
    try {
      text = readFileSync(this.journal, 'utf8')
    } catch {
      return []
    }
    const entries: StatusEntry[] = []
    for (const line of text.split('\n')) {
      if (!line) continue
      try {
        const entry = JSON.parse(line) as StatusEntry
        if (entry.seq > afterSeq) entries.push(entry)
      } catch {}
    }
    return entries
  }

  /** The sequence number of the journal's last entry (0: none), reading only its end. */
  lastJournalSeq(): number {
    // Only the last line is read: the journal grows with every status change.
    const [last] = lastLines(this.journal, 1)
    try {
      return last ? (JSON.parse(last) as StatusEntry).seq : 0
    } catch {
      return this.readJournal().at(-1)?.seq ?? 0 // a torn last line: the last whole one counts
    }
  }

  /** Appends one entry (one write of one line, so concurrent readers never see half of it). */
  appendJournal(entry: Omit<StatusEntry, 'seq'>): StatusEntry {
    const full = { seq: this.lastJournalSeq() + 1, ...entry }
    // After a write that a full disk cut short, the torn line is ended first, so this one stays whole.
    const torn = !endsWithNewline(this.journal)
    appendFileSync(this.journal, `${torn ? '\n' : ''}${JSON.stringify(full)}\n`, { mode: 0o600 })
    return full
  }

  /**
   * A status change: `state` (with `changes`) written to state.json and the change appended to
   * the journal. Returns both. The one way anyone changes a server's status on disk.
   */
  changeStatus(
    state: RunState,
    status: ServerStatus,
    extra: Partial<Pick<StatusEntry, 'reason' | 'exitCode' | 'signal' | 'restarts' | 'willRestart' | 'lastKnown'>>,
    changes: Partial<RunState> = {},
  ): { state: RunState; entry: StatusEntry } {
    const at = new Date().toISOString()
    const next: RunState = { ...state, ...changes, status, since: at, reason: extra.reason }
    this.writeState(next)
    return { state: next, entry: this.appendJournal({ at, status, previous: state.status, ...extra }) }
  }

  exists(): boolean {
    return existsSync(this.dir)
  }

  logSize(): number {
    return fileSize(this.log)
  }
}

/** The file's JSON, or undefined when it is missing or unreadable (a missing one is asked first: a throw costs an error with its stack, and a look at a never-started server reads several). */
function readJson<T>(path: string): T | undefined {
  if (!existsSync(path)) return undefined
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as T
  } catch {
    return undefined
  }
}

function writeJson(path: string, value: unknown): void {
  writeFileWhole(path, `${JSON.stringify(value, null, 2)}\n`, 0o600)
}

/** A run state as `status` answers it (the supervisor's own view, or the state file's). */
export function runStatusOf(
  state: RunState | undefined,
  view: { readonly supervisorPid?: number; readonly adopted?: boolean } = {},
): import('./protocol').RunStatus {
  return {
    status: state?.status ?? 'stopped',
    since: state?.since ?? new Date(0).toISOString(),
    pid: state?.game?.pid,
    startedAt: state?.game?.startedAt,
    supervisorPid: view.supervisorPid,
    adopted: view.adopted ?? false,
    mode: state?.mode ?? 'detached',
    restarts: state?.restarts ?? 0,
    exitCode: state?.exitCode ?? null,
    signal: state?.signal ?? null,
    reason: state?.reason,
  }
}
