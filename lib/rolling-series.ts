import { appendFileSync, closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs'
import { dirname } from 'node:path'
import {
  type Bucket,
  endsWithNewline,
  firstTime,
  forEachLine,
  parseLine,
  roundValue,
  type Sample,
} from './series-lines'

/** How long samples are kept: at full rate, then as buckets of `bucketMs`. */
export interface Retention {
  readonly fullRateMs: number
  readonly downsampledMs: number
  readonly bucketMs: number
}

/** The file of a series' buckets, next to its full-rate file (`host.jsonl` → `host.downsampled.jsonl`). */
export function downsampledPath(path: string): string {
  return path.replace(/(\.jsonl)?$/, '.downsampled.jsonl')
}

/**
 * A time series in two append-only files: every sample, for `fullRateMs`, and older samples as
 * buckets (averages and peaks), for `downsampledMs`. Appends are one write of one line; a line
 * torn by a crash is ended before the next one, and readers skip it. Once the full-rate file
 * holds a quarter more than its span (or a bucket more), its old samples are folded into buckets,
 * appended to the other file, and the file is rewritten without them (a temporary file, synced,
 * renamed); the downsampled file is trimmed the same way. A crash at any point leaves every
 * sample in one file or the other (at worst a bucket twice: readers keep the last). So the files
 * never grow past their spans, whatever runs for how long. One writer per series.
 */
export class RollingSeries {
  readonly path: string
  readonly downsampled: string
  readonly #retention: Retention
  /** Fields whose peak is kept in buckets besides their average. */
  readonly #peaks: readonly string[]
  #oldest: number | undefined
  #oldestBucket: number | undefined
  /** The file may end in a torn line (found at open, or after a failed write): end it first. */
  #torn: boolean
  /** A compaction that failed (a full disk) is tried again no sooner than this. */
  #retryAt = 0
  /** A write failed and has not worked since (said once). */
  #trouble = false

  constructor(path: string, retention: Retention, peaks: readonly string[]) {
    this.path = path
    this.downsampled = downsampledPath(path)
    this.#retention = retention
    this.#peaks = peaks
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
    this.#oldest = firstTime(path)
    this.#oldestBucket = firstTime(this.downsampled)
    this.#torn = !endsWithNewline(path)
  }

  /**
   * Appends a sample and compacts when due, never throwing: samples are worth less than the
   * process taking them. A failed write (a full disk) is said through `say` once, and once more
   * when writing works again; a failed compaction each time it is tried.
   */
  record(sample: Sample, say: (message: string) => void): void {
    try {
      this.append(sample)
      if (this.#trouble) say(`samples are written to ${this.path} again`)
      this.#trouble = false
    } catch (error) {
      if (!this.#trouble) say(`samples are not written to ${this.path} (tried again with each): ${messageOf(error)}`)
      this.#trouble = true
      return
    }
    try {
      this.compactIfDue(sample.t)
    } catch (error) {
      say(`${this.path} could not be compacted (tried again later): ${messageOf(error)}`)
    }
  }

  /** Appends a sample (its `t` first). Throws what the write threw (a full disk); call `compactIfDue` after. */
  append(sample: Sample): void {
    try {
      appendFileSync(this.path, `${this.#torn ? '\n' : ''}${JSON.stringify(sample)}\n`, { mode: 0o600 })
      this.#torn = false
    } catch (error) {
      this.#torn = true
      throw error
    }
    this.#oldest ??= sample.t
  }

  /**
   * Folds what is past the full-rate span into buckets, and drops buckets past theirs, when either
   * is due (a comparison of two times when not). Throws what the rewrite threw; it is tried again
   * a minute (or a bucket) later.
   */
  compactIfDue(now: number): void {
    const { fullRateMs, downsampledMs, bucketMs } = this.#retention
    if (now < this.#retryAt) return
    const fullDue = this.#oldest !== undefined && now - this.#oldest > fullRateMs + slack(fullRateMs, bucketMs)
    const bucketsDue =
      this.#oldestBucket !== undefined && now - this.#oldestBucket > downsampledMs + slack(downsampledMs, bucketMs)
    if (!fullDue && !bucketsDue) return
    try {
      if (fullDue) this.#fold(now)
      if (bucketsDue) this.#trimBuckets(now)
    } catch (error) {
      this.#retryAt = now + Math.max(bucketMs, 60_000)
      throw error
    }
  }

  /** Moves the samples before the full-rate span (whole buckets of them) into the downsampled file. */
  #fold(now: number): void {
    const { fullRateMs, bucketMs } = this.#retention
    const cutoff = Math.floor((now - fullRateMs) / bucketMs) * bucketMs
    const buckets: string[] = []
    let current: Accumulator | undefined
    let oldest: number | undefined
    rewrite(
      this.path,
      (line, keep) => {
        const sample = parseLine<Sample>(line)
        if (!sample) return // torn or garbled: dropped
        if (sample.t >= cutoff) {
          oldest ??= sample.t
          return keep(line)
        }
        const start = Math.floor(sample.t / bucketMs) * bucketMs
        if (current && current.t !== start) {
          buckets.push(JSON.stringify(current.bucket()))
          current = undefined
        }
        current ??= new Accumulator(start, bucketMs, this.#peaks)
        current.add(sample)
      },
      () => {
        if (current) buckets.push(JSON.stringify(current.bucket()))
        // Before the full-rate file loses them: a crash between the two leaves a bucket twice, never none.
        if (buckets.length > 0) {
          const torn = !endsWithNewline(this.downsampled)
          appendFileSync(this.downsampled, `${torn ? '\n' : ''}${buckets.join('\n')}\n`, { mode: 0o600 })
          this.#oldestBucket ??= firstTime(this.downsampled)
        }
      },
    )
    this.#oldest = oldest
    this.#torn = false
  }

  #trimBuckets(now: number): void {
    const cutoff = now - this.#retention.downsampledMs
    let oldest: number | undefined
    rewrite(this.downsampled, (line, keep) => {
      const bucket = parseLine<Bucket>(line)
      if (!bucket || bucket.t + (bucket.d ?? 0) <= cutoff) return
      oldest ??= bucket.t
      keep(line)
    })
    this.#oldestBucket = oldest
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

/** How far past its span a file may grow before it is compacted: a quarter of it, or a bucket. */
function slack(spanMs: number, bucketMs: number): number {
  return Math.max(spanMs / 4, bucketMs)
}

/**
 * Rewrites a file with the lines `each` keeps: to `<path>.tmp` (written in large pieces, synced),
 * then `beforeRename`, then renamed over it, so a crash leaves the old file or the new one.
 */
function rewrite(
  path: string,
  each: (line: string, keep: (line: string) => void) => void,
  beforeRename?: () => void,
): void {
  const tmp = `${path}.tmp`
  const out = openSync(tmp, 'w', 0o600)
  try {
    let pending: string[] = []
    let size = 0
    const flush = () => {
      if (pending.length > 0) writeSync(out, `${pending.join('\n')}\n`)
      pending = []
      size = 0
    }
    forEachLine(path, (line) =>
      each(line, (kept) => {
        pending.push(kept)
        size += kept.length
        if (size > 64 * 1024) flush()
      }),
    )
    flush()
    fsyncSync(out)
  } catch (error) {
    closeSync(out)
    rmSync(tmp, { force: true })
    throw error
  }
  closeSync(out)
  try {
    beforeRename?.()
    renameSync(tmp, path)
  } catch (error) {
    rmSync(tmp, { force: true })
    throw error
  }
}

/** The samples of one bucket: sums and peaks as they come. */
class Accumulator {
  readonly t: number
  readonly #d: number
  readonly #peaks: readonly string[]
  #n = 0
  readonly #sums = new Map<string, { sum: number; n: number; max: number }>()

  constructor(t: number, d: number, peaks: readonly string[]) {
    this.t = t
    this.#d = d
    this.#peaks = peaks
  }

  add(sample: Sample): void {
    this.#n++
    for (const [field, value] of Object.entries(sample)) {
      if (field === 't' || typeof value !== 'number') continue
      const sum = this.#sums.get(field)
      if (sum) {
        sum.sum += value
        sum.n++
        sum.max = Math.max(sum.max, value)
      } else this.#sums.set(field, { sum: value, n: 1, max: value })
    }
  }

  bucket(): Bucket {
    // `t`, then `d`: readers find a bucket's span without parsing the rest (series-lines.ts).
    const bucket: Record<string, number> = { t: this.t, d: this.#d, n: this.#n }
    for (const [field, { sum, n, max }] of this.#sums) {
      bucket[field] = roundValue(sum / n)
      if (this.#peaks.includes(field)) bucket[`${field}_max`] = max
    }
    return bucket as Bucket
  }
}
