import { fstatSync, writeSync } from 'node:fs'

/** What a guarded output says when it starts dropping lines and when it writes again. */
export type OutputTrouble =
  | { readonly kind: 'dropping'; readonly stream: string; readonly reason: string }
  | { readonly kind: 'resumed'; readonly stream: string; readonly reason: string; readonly dropped: number }

const listeners = new Set<(trouble: OutputTrouble) => void>()

/** Hears every guarded output's trouble (the logger notes it in its file); returns how to stop. */
export function onOutputTrouble(listener: (trouble: OutputTrouble) => void): () => void {
  listeners.add(listener)
  return () => void listeners.delete(listener)
}

const guarded = new WeakSet<NodeJS.WriteStream>()

/** The first output failure of this process and how many writes it dropped in all (resumed or not). */
let lost: { stream: string; reason: string; dropped: number } | undefined

/**
 * What this process could not write to its stdout or stderr, if anything: a one-shot command
 * whose output was lost must not exit 0 (bin/run.js makes it exit 74).
 */
export function lostOutput():
  | { readonly stream: string; readonly reason: string; readonly dropped: number }
  | undefined {
  return lost
}

/**
 * Makes this process's stdout and stderr safe to write to whatever happens to them: a full disk
 * under a background manager's output file (ENOSPC), a reader that went away (EPIPE), a
 * terminal that closed (EIO). Such a failure drops the text instead of ending the process
 * (Node would raise it as an uncaught 'error'); writing goes on as soon as it works again, and
 * the first line that gets through says how many were dropped.
 */
export function guardProcessOutput(): void {
  guardOutput(process.stdout, 'stdout')
  guardOutput(process.stderr, 'stderr')
}

export function guardOutput(stream: NodeJS.WriteStream, name: string): void {
  if (guarded.has(stream)) return
  guarded.add(stream)
  let failing: { reason: string; dropped: number } | undefined
  const dropped = (error: unknown) => {
    const reason = (error as Error)?.message ?? String(error)
    lost ??= { stream: name, reason, dropped: 0 }
    lost.dropped++
    if (failing) {
      failing.dropped++
      return
    }
    failing = { reason, dropped: 1 }
    tell({ kind: 'dropping', stream: name, reason })
  }
  // A stream's own asynchronous failures (a pipe's EPIPE) are dropped lines, not a crash.
  stream.on('error', dropped)
  const fd = (stream as { fd?: unknown }).fd
  const file = typeof fd === 'number' && isFile(fd)
  const original = stream.write.bind(stream) as (chunk: unknown, encoding?: unknown, cb?: unknown) => boolean
  stream.write = ((chunk: unknown, encoding?: unknown, cb?: unknown) => {
    const callback = typeof encoding === 'function' ? encoding : typeof cb === 'function' ? cb : undefined
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString()
    // A file is written directly: a failed write leaves Node's stream usable for the next line.
    if (file || stream.destroyed) {
      try {
        if (stream.destroyed && !file) throw new Error('the output was closed')
        if (failing && text) {
          writeAll(fd as number, `${notice(failing)}\n`)
          const resumed = failing
          failing = undefined
          tell({ kind: 'resumed', stream: name, ...resumed })
        }
        writeAll(fd as number, text)
      } catch (error) {
        if (text) dropped(error)
      }
      ;(callback as (() => void) | undefined)?.()
      return true
    }
    try {
      return original(chunk, encoding, cb)
    } catch (error) {
      dropped(error)
      return true
    }
  }) as typeof stream.write
}

function notice(resumed: { reason: string; dropped: number }): string {
  const time = new Date().toISOString().slice(11, 23)
  return `${time} WARN  [log] ${resumed.dropped} writes of output were dropped while it could not be written (${resumed.reason})`
}

function tell(trouble: OutputTrouble): void {
  for (const listener of listeners)
    try {
      listener(trouble)
    } catch {}
}

/** Writes all of `text` to `fd` (a write may take only part of it). */
export function writeAll(fd: number, text: string): void {
  let bytes = Buffer.from(text)
  while (bytes.length > 0) bytes = bytes.subarray(writeSync(fd, bytes))
}

function isFile(fd: number): boolean {
  try {
    return fstatSync(fd).isFile()
  } catch {
    return false
  }
}
