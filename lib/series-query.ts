import type { z } from 'zod'
import { downsampledPath } from './rolling-series'
import { type Bucket, bucketEnd, forEachLine, lineTime, parseLine, roundValue, type Sample } from './series-lines'
import type { seriesRequest } from './series-schema'

/** A range of a series, and how coarse its points may be. */
export interface SeriesRange {
  /** From and to, ms since the epoch (both included). */
  readonly from: number
  readonly to: number
  /** Points averaged over this many ms; 0: as stored, unless there would be more than `maxPoints`. */
  readonly stepMs?: number
  readonly maxPoints?: number
}

/** A series as columns (what a chart draws): `t` (ms) and one array per field, null where a point lacks it. */
export interface SeriesColumns {
  /** The ms each point stands for: 0 for samples as taken (and older buckets as stored). */
  readonly stepMs: number
  readonly columns: Readonly<Record<string, (number | null)[]>>
}

const DEFAULT_MAX_POINTS = 1_000
/** Steps a range is averaged to when it holds too many points: round numbers of seconds. */
const STEPS_S = [5, 10, 15, 30, 60, 120, 300, 600, 900, 1_800, 3_600, 7_200, 21_600, 43_200, 86_400]

/**
 * Reads a range of a rolling series (rolling-series.ts) from its two files: buckets where the
 * full-rate samples have been folded away, samples after. Lines that do not parse are skipped, and
 * a bucket written twice (a crash during a compaction) counts once. With more points than
 * `maxPoints` (or a `stepMs`), points are averaged over steps, keeping the peaks.
 */
export function readSeries(
  path: string,
  fields: readonly string[],
  peaks: readonly string[],
  range: SeriesRange,
): SeriesColumns {
  const { from, to } = range
  const buckets = new Map<number, Bucket>()
  forEachLine(downsampledPath(path), (line) => {
    const t = lineTime(line)
    if (t === undefined || t > to) return
    // Most of a month of buckets lies before a range of an hour: those are not parsed.
    const end = bucketEnd(line)
    if (end !== undefined && end <= from) return
    const bucket = parseLine<Bucket>(line)
    if (bucket && bucket.t + (bucket.d ?? 0) > from) buckets.set(bucket.t, bucket)
  })
  const points: Sample[] = [...buckets.values()].sort((a, b) => a.t - b.t)
  const last = points.at(-1) as Bucket | undefined
  const after = last ? last.t + last.d : -Infinity
  forEachLine(path, (line) => {
    const t = lineTime(line)
    if (t === undefined || t < from || t > to || t < after) return
    const sample = parseLine<Sample>(line)
    if (sample) points.push(sample)
  })
  const maxPoints = range.maxPoints ?? DEFAULT_MAX_POINTS
  let stepMs = range.stepMs ?? 0
  if (stepMs === 0 && points.length > maxPoints) {
    const wanted = (to - from) / maxPoints / 1000
    stepMs = (STEPS_S.find((s) => s >= wanted) ?? Math.ceil(wanted)) * 1000
  }
  const rows = stepMs > 0 ? average(points, stepMs, peaks) : points
  return { stepMs, columns: columnsOf(rows, fields, peaks) }
}

/** Points averaged over steps of `stepMs` (weighted by how many samples each holds), peaks kept. */
function average(points: readonly Sample[], stepMs: number, peaks: readonly string[]): Sample[] {
  const out: Sample[] = []
  let current:
    | { t: number; weight: Map<string, number>; sums: Map<string, number>; max: Map<string, number> }
    | undefined
  const close = () => {
    if (!current) return
    const row: Record<string, number> = { t: current.t }
    for (const [field, sum] of current.sums) row[field] = roundValue(sum / (current.weight.get(field) ?? 1))
    for (const [field, max] of current.max) row[field] = max
    out.push(row as Sample)
  }
  for (const point of points) {
    const t = Math.floor(point.t / stepMs) * stepMs
    if (current?.t !== t) {
      close()
      current = { t, weight: new Map(), sums: new Map(), max: new Map() }
    }
    const n = point.n ?? 1
    for (const [field, value] of Object.entries(point)) {
      if (field === 't' || field === 'd' || field === 'n' || field.endsWith('_max') || typeof value !== 'number')
        continue
      current.sums.set(field, (current.sums.get(field) ?? 0) + value * n)
      current.weight.set(field, (current.weight.get(field) ?? 0) + n)
      if (peaks.includes(field)) {
        const peak = point[`${field}_max`] ?? value
        current.max.set(`${field}_max`, Math.max(current.max.get(`${field}_max`) ?? peak, peak))
      }
    }
  }
  close()
  return out
}

function columnsOf(rows: readonly Sample[], fields: readonly string[], peaks: readonly string[]) {
  const columns: Record<string, (number | null)[]> = { t: rows.map((row) => row.t) }
  for (const field of fields) columns[field] = rows.map((row) => row[field] ?? null)
  for (const field of peaks) columns[`${field}_max`] = rows.map((row) => row[`${field}_max`] ?? row[field] ?? null)
  return columns
}

/** A range of a series as callers ask for it (series-schema.ts): from and to in ms since the epoch, and a step. */
export type SeriesRequest = Readonly<z.output<typeof seriesRequest>>

/** Columns by name: `t` (ms since the epoch) and one per field, null where a point lacks it. */
export type Columns<F extends string> = { readonly t: number[] } & { readonly [K in F]: (number | null)[] }

/** A series as a chart draws it: the range asked, the step its points stand for (0: as taken), its columns. */
export interface SeriesReply<F extends string = string> {
  readonly from: number
  readonly to: number
  readonly step_s: number
  readonly columns: Columns<F>
}

const HOUR_MS = 3_600_000

/** A range of a series as asked (the last hour by default; from after to: no points). */
export function querySeries<F extends string, P extends F>(
  path: string,
  fields: readonly F[],
  peaks: readonly P[],
  request: SeriesRequest,
  now = Date.now(),
): SeriesReply<F | `${P}_max`> {
  const to = request.to ?? now
  const from = request.from ?? to - HOUR_MS
  const { stepMs, columns } = readSeries(path, fields, peaks, { from, to, stepMs: (request.stepS ?? 0) * 1000 })
  return { from, to, step_s: stepMs / 1000, columns: columns as Columns<F | `${P}_max`> }
}
