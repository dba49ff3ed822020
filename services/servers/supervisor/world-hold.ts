import { isSmError, reasonOf, SmError } from '../../../kernel/errors'
import { isSameProcess } from '../../../lib/process-identity'
import { holdCommands } from '../profiles'
import type { Conn, GameConsole } from './game-console'
import { type ConsoleProfile, specProfile } from './profiles'
import type { SendReply } from './protocol'
import type { HoldRecord, ProcessRef, RunFiles, RunSpec } from './run-files'
import type { RunRecord } from './run-record'

/** How often a hold's holder is checked, once no connection of its own stands for it. */
const HOLD_POLL_MS = 250

/**
 * A world held for a hot backup: who holds it, the commands that resume it, and through which
 * connection (none after an adoption, until the holder comes back). `orphaned` once that
 * connection closed without a resume.
 */
interface Hold {
  readonly record: HoldRecord
  connection: Conn | undefined
  orphaned: boolean
}

/**
 * A run's world held for a hot backup: held on a holder's behalf (recorded in `hold.json` first),
 * resumed when it asks, and resumed by the supervisor itself once nobody stands for the hold (its
 * connection closed without a resume, or after an adoption its holder is gone).
 */
export class WorldHold {
  readonly #files: RunFiles
  readonly #spec: RunSpec
  readonly #profile: ConsoleProfile
  readonly #console: GameConsole
  readonly #record: RunRecord
  #hold: Hold | undefined
  #holdWatch: NodeJS.Timeout | undefined
  #resuming: Promise<SendReply> | undefined

  constructor(files: RunFiles, spec: RunSpec, profile: ConsoleProfile, console: GameConsole, record: RunRecord) {
    this.#files = files
    this.#spec = spec
    this.#profile = profile
    this.#console = console
    this.#record = record
  }

  /** Whether the world is held. */
  get held(): boolean {
    return this.#hold !== undefined
  }

  /** A hold the supervisor before this one took: kept while its holder lives, resumed at once if it is gone. */
  takeOver(record: HoldRecord): void {
    this.#hold = { record, connection: undefined, orphaned: false }
    this.#watch()
  }

  /**
   * Holds the world for `holder`, owned by `connection` (the same holder coming back after an
   * adoption takes its hold over): the profile's hold commands (Bedrock `save hold`, or the `off`
   * commands), their replies answered. The commands that resume it are recorded with the hold.
   */
  async hold(connection: Conn, holder: ProcessRef): Promise<SendReply> {
    const protocol = specProfile(this.#spec).hotBackup
    if (!protocol)
      throw new SmError('SM_ERR_SERVER_COMMAND_INVALID', {
        server: this.#spec.name,
        reason: `this ${this.#spec.profile} server has no hot-backup commands to hold its world with (server add --hot-backup 'off;flush;on')`,
      })
    const held = this.#hold
    const other = held?.record.holder
    if (
      held &&
      other &&
      !held.orphaned &&
      (other.pid !== holder.pid || other.identity !== holder.identity) &&
      isSameProcess(other.pid, other.identity)
    )
      throw new SmError('SM_ERR_SERVER_BUSY', {
        server: this.#spec.name,
        action: 'hot backup',
        pid: String(other.pid),
        since: held.record.since,
      })
    const { hold, resume } = holdCommands(protocol)
    const record: HoldRecord = { holder, since: new Date().toISOString(), resume }
    // Recorded before the game is held: a supervisor that dies right after leaves it known.
    this.#files.writeHold(record)
    this.#hold = { record, connection, orphaned: false }
    this.#watch()
    const reply: string[] = []
    for (const [index, command] of hold.entries()) {
      try {
        reply.push(...(await this.#console.send(command, true)).reply)
      } catch (error) {
        // Nothing was sent: nothing to resume.
        if (index === 0 && isSmError(error) && error.code === 'SM_ERR_SERVER_CONSOLE_UNAVAILABLE') this.release()
        throw error
      }
    }
    return { sent: true, reply }
  }

  /** The resume commands, up to three times; the hold is over once they are acknowledged. One at a time. */
  resume(): Promise<SendReply> {
    this.#resuming ??= this.#sendResume().finally(() => {
      this.#resuming = undefined
    })
    return this.#resuming
  }

  async #sendResume(): Promise<SendReply> {
    const protocol = specProfile(this.#spec).hotBackup
    // The commands recorded with the hold (one recorded without them is Bedrock's: its profile's).
    const commands = this.#hold?.record.resume ?? (protocol ? holdCommands(protocol).resume : [])
    let last: unknown
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        const reply: string[] = []
        for (const command of commands) reply.push(...(await this.#console.send(command, true)).reply)
        if (commands.every((command) => this.#profile.acknowledged(command, reply))) {
          this.release()
          return { sent: true, reply }
        }
        last = new SmError('SM_ERR_SERVER_CONSOLE_UNAVAILABLE', {
          server: this.#spec.name,
          reason: `'${commands.join("', '")}' was not acknowledged (it answered: ${reply.slice(0, 3).join(' | ') || 'nothing'})`,
        })
      } catch (error) {
        last = error
      }
    }
    throw last
  }

  /** The hold is over (resumed, or its game process is gone): its record goes. */
  release(): void {
    this.#hold = undefined
    this.#files.writeHold(undefined)
    if (this.#holdWatch) clearInterval(this.#holdWatch)
    this.#holdWatch = undefined
  }

  /** `connection` closed: a hold it stood for, not resumed, is resumed now. */
  connectionClosed(connection: Conn): void {
    if (this.#hold?.connection !== connection) return
    this.#hold.orphaned = true
    this.#check()
  }

  /** Stops checking the holder for good (the run has ended). */
  stopWatching(): void {
    if (this.#holdWatch) clearInterval(this.#holdWatch)
  }

  #watch(): void {
    this.#holdWatch ??= setInterval(() => this.#check(), HOLD_POLL_MS)
    this.#check()
  }

  /** Resumes a hold nobody stands for any more: its connection closed, or (after an adoption) its holder is gone. */
  #check(): void {
    const hold = this.#hold
    if (!hold || this.#resuming) return
    const { pid, identity } = hold.record.holder
    const holderGone = !isSameProcess(pid, identity)
    if (!hold.orphaned && (hold.connection !== undefined || !holderGone)) return
    const why = hold.orphaned ? 'its holder closed the connection without resuming' : 'its holder is gone'
    this.resume().then(
      () => this.#record.log(`resumed the world's saving (held by PID ${pid} since ${hold.record.since}): ${why}`),
      (error) =>
        this.#record.log(`could not resume a world held by PID ${pid} (${why}), trying again: ${reasonOf(error)}`),
    )
  }
}
