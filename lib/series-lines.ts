import { closeSync, openSync, readSync, statSync } from 'node:fs'

/**
 * The line format of a rolling series (rolling-series.ts): JSON objects, one a line, each
 * starting with its time, `{"t":<ms since the epoch>,…}`, so a reader can skip a line by its
 * time without parsing the rest. A line that does not parse (torn by a crash mid-write) is
 * skipped by every reader.
 */

/** One sample: its time and numbers. */
export interface Sample {
  readonly t: number
  readonly [field: string]: number
}

/** A sample whose fields may be absent (a disk not measured), as a series records it: without them. */
export function presentFields(value: { readonly t: number; readonly [field: string]: number | undefined }): Sample {
  const sample: { t: number; [field: string]: number } = { t: value.t }
  for (const [field, number] of Object.entries(value)) if (number !== undefined) sample[field] = number
  return sample
}

/**
 * A downsampled bucket: from `t`, `d` ms long, `n` samples; each field averaged, and the fields
 * the series peaks kept also as `<field>_max`.
 */
export interface Bucket extends Sample {
  readonly d: number
  readonly n: number
}

const CHUNK = 64 * 1024
const TIME = /^\{"t":(\d+)[,}]/
/** A bucket as written (rolling-series.ts): its span follows its time. */
const SPAN = /^\{"t":(\d+),"d":(\d+)[,}]/

/** A line's time, read from its start only; undefined for a line that is not one of ours. */
export function lineTime(line: string): number | undefined {
  const match = TIME.exec(line)
  return match ? Number(match[1]) : undefined
}

/**
 * When a bucket's line ends (`t + d`), read from its start only, so a reader passes over the
 * buckets before a range without parsing them; undefined for a line that does not start so.
 */
export function bucketEnd(line: string): number | undefined {
  const match = SPAN.exec(line)
  return match ? Number(match[1]) + Number(match[2]) : undefined
}

/** A line as a sample, or undefined when it does not parse (a torn line) or is not one. */
export function parseLine<T extends Sample>(line: string): T | undefined {
  try {
    const value = JSON.parse(line) as T
    return value !== null && typeof value === 'object' && typeof value.t === 'number' ? value : undefined
  } catch {
    return undefined
  }
}

/**
 * Calls `each` with every complete line of a file, in order, reading 64 KiB at a time (the file
 * is never held whole). A last line with no newline is torn (a crash mid-write) and left out.
 * A missing file has no lines.
 */
export function forEachLine(path: string, each: (line: string) => void): void {
  let fd: number
  try {
    fd = openSync(path, 'r')
  } catch {
    return
  }
  try {
    const buffer = Buffer.alloc(CHUNK)
    let rest = ''
    for (;;) {
      const read = readSync(fd, buffer, 0, CHUNK, null)
      if (read === 0) break
      const text = rest + buffer.toString('utf8', 0, read)
      const lines = text.split('\n')
      rest = lines.pop() ?? ''
      for (const line of lines) if (line) each(line)
    }
  } finally {
    closeSync(fd)
  }
}

/** The time of a file's first complete line (read from its first few KiB), or undefined. */
export function firstTime(path: string): number | undefined {
  let fd: number
  try {
    fd = openSync(path, 'r')
  } catch {
    return undefined
  }
  try {
    const buffer = Buffer.alloc(4096)
    const read = readSync(fd, buffer, 0, buffer.length, 0)
    const text = buffer.toString('utf8', 0, read)
    for (const line of text.split('\n').slice(0, -1)) {
      const t = lineTime(line)
      if (t !== undefined) return t
    }
    return undefined
  } catch {
    return undefined // not a file (EISDIR): nothing of ours
  } finally {
    closeSync(fd)
  }
}

/** Whether a file ends a line (an empty or missing file counts as ended): a line appended after it stays whole. */
export function endsWithNewline(path: string): boolean {
  let size: number
  try {
    size = statSync(path).size
  } catch {
    return true
  }
  if (size === 0) return true
  let fd: number
  try {
    fd = openSync(path, 'r')
  } catch {
    return true // unreadable: an append will say why
  }
  try {
    const last = Buffer.alloc(1)
    readSync(fd, last, 0, 1, size - 1)
    return last[0] === 0x0a
  } catch {
    return true
  } finally {
    closeSync(fd)
  }
}

/** A number as series keep it: whole from 100 up, else to two decimals (an average need not be exact). */
export function roundValue(value: number): number {
  return Math.abs(value) >= 100 ? Math.round(value) : Math.round(value * 100) / 100
}
