import { reasonOf } from '../../../kernel/errors'
import { ProcessCpu, processRss, processTree } from '../../../lib/proc-stats'
import { RollingSeries } from '../../../lib/rolling-series'
import type { Sample } from '../../../lib/series-lines'
import { SERVER_PEAKS } from '../contract/constants'
import { diskUsage } from './disk-usage'
import type { ServerSample } from './protocol'
import type { GameRef, MetricsSpec } from './run-files'

/**
 * Samples the game a supervisor runs, every `intervalMs`, from /proc: the CPU time of the game and
 * the processes its main thread started, against the machine's; their resident memory; and, every
 * `diskIntervalMs`, the size of the server's directory on disk (`du`, bounded in time).
 * Each sample is appended to the run directory's rolling series (so samples go on with no manager)
 * and handed to `onSample` (the supervisor's followers; also when it cannot be written, on a full
 * disk). Between runs (a crash restart's pause) nothing is sampled.
 */
export class Sampler {
  readonly #spec: MetricsSpec
  readonly #dir: string
  readonly #series: RollingSeries
  readonly #game: () => GameRef | undefined
  readonly #onSample: (sample: ServerSample) => void
  readonly #log: (message: string) => void
  readonly #cpu = new ProcessCpu()
  #pid: number | undefined
  #disk: number | undefined
  #walking = false
  /** Ends a walk under way when sampling stops. */
  readonly #stopped = new AbortController()
  #timers: NodeJS.Timeout[] = []
  #latest: ServerSample | undefined

  constructor(options: {
    spec: MetricsSpec
    /** The server's directory (its size on disk). */
    dir: string
    series: string
    game: () => GameRef | undefined
    onSample: (sample: ServerSample) => void
    log: (message: string) => void
  }) {
    this.#spec = options.spec
    this.#dir = options.dir
    this.#series = new RollingSeries(options.series, options.spec.retention, SERVER_PEAKS)
    this.#game = options.game
    this.#onSample = options.onSample
    this.#log = options.log
  }

  /** The last sample of the game running now, if any. */
  get latest(): ServerSample | undefined {
    return this.#latest
  }

  start(): this {
    this.#tick() // the first CPU reading: the next one has something to count from
    void this.#walk()
    // The supervisor's socket keeps it alive; these never need to.
    this.#timers.push(
      setInterval(() => this.#tick(), this.#spec.intervalMs).unref(),
      setInterval(() => void this.#walk(), this.#spec.diskIntervalMs).unref(),
    )
    return this
  }

  stop(): void {
    this.#stopped.abort()
    for (const timer of this.#timers) clearInterval(timer)
    this.#timers = []
    this.#latest = undefined
  }

  #tick(): void {
    try {
      this.#sample()
    } catch (error) {
      // Never the supervisor's end: the next tick tries again.
      this.#log(`a resource sample failed: ${reasonOf(error)}`)
    }
  }

  #sample(): void {
    const game = this.#game()
    if (!game || game.pid !== this.#pid) {
      // Another run (or none): its CPU is counted from its own first reading.
      this.#cpu.reset()
      this.#latest = undefined
      this.#pid = game?.pid
    }
    if (!game) return
    const pids = processTree(game.pid)
    const cpu = this.#cpu.read(pids)
    if (cpu === undefined) return
    let rss = 0
    for (const pid of pids) rss += processRss(pid) ?? 0
    const t = Date.now()
    // `t` first: readers find a line's time without parsing the rest.
    const stored = { t, cpu: Math.round(cpu * 10) / 10, rss, ...(this.#disk === undefined ? {} : { disk: this.#disk }) }
    this.#series.record(stored as Sample, this.#log)
    this.#latest = { ...stored, uptime_s: Math.max(0, Math.round((t - Date.parse(game.startedAt)) / 1000)) }
    this.#onSample(this.#latest)
  }

  async #walk(): Promise<void> {
    if (this.#walking) return
    this.#walking = true
    try {
      // At most a walk's interval (and at least 10 s): a walk still going then is ended.
      const timeoutMs = Math.max(10_000, this.#spec.diskIntervalMs)
      this.#disk = (await diskUsage(this.#dir, timeoutMs, this.#stopped.signal)) ?? this.#disk
    } finally {
      this.#walking = false
    }
  }
}
