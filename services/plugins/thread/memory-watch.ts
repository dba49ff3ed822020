/**
 * Bounds the memory a plugin's thread holds outside its V8 heap (`Buffer`s, `ArrayBuffer`s),
 * which `resourceLimits` do not count. Node 20 tells a thread's own numbers only inside it
 * (`process.memoryUsage().external` there is its isolate's; `rss` is the process's), so each
 * thread reports them itself (`reportMemory`, a timer of REPORT_MS) into a shared array; the
 * manager's thread samples them with the process's RSS (`watchMemory`, every SAMPLE_MS):
 *
 * - a thread that reports more than its limit outside its heap is ended (exact: its own count);
 * - a thread that holds its loop (no report for HELD_MS: a synchronous loop, where its timer
 *   cannot run) while the process's RSS grows, since its last report, by more than that thread
 *   may hold (its limit outside the heap, plus what its heap may still grow), less what V8
 *   accounts for elsewhere meanwhile (the reporting threads' heaps and external memory, and the
 *   manager's own), is ended. Of several such
 *   threads only the one held longest is ended at a time (the growth began when it stopped
 *   reporting: one delayed by a busy machine stopped later), and nothing more is judged until
 *   its thread has exited and the RSS settled.
 *
 * The limits: memory V8 does not account for (native addons, a new thread's stacks and code)
 * that grows while a plugin's thread is held is taken for the held thread's; a thread ends only
 * once RSS has outgrown its allowance plus one sample's growth.
 */

import { getHeapStatistics } from 'node:v8'

/** Slots of a thread's report: its beat, and its external memory and heap in MB. */
const BEAT = 0
const EXTERNAL_MB = 1
const HEAP_MB = 2
const SLOTS = 3

/** How often a thread reports (its timer is unref'd; a report, V8's heap statistics, costs a few microseconds). */
export const REPORT_MS = 10
/** How often the manager samples the process's RSS (a read of /proc, tens of microseconds) and the reports. */
const SAMPLE_MS = 10
/** A thread that has not reported for this long holds its loop. */
const HELD_MS = 60
const MB = 1024 * 1024

/** The shared array a thread reports into. */
export function memoryReport(): Int32Array {
  return new Int32Array(new SharedArrayBuffer(SLOTS * Int32Array.BYTES_PER_ELEMENT))
}

/** In the plugin's thread: reports its own memory outside the heap, and its heap, every REPORT_MS. */
export function reportMemory(report: Int32Array): void {
  // This isolate's own figures (what process.memoryUsage().external says in a thread, without
  // its read of the process's RSS), read by a function taken before the plugin's code runs.
  const statistics = getHeapStatistics
  const tick = () => {
    const { external_memory: external, total_heap_size: heap } = statistics()
    Atomics.store(report, EXTERNAL_MB, Math.ceil(external / MB))
    Atomics.store(report, HEAP_MB, Math.ceil(heap / MB))
    Atomics.add(report, BEAT, 1)
  }
  tick()
  setInterval(tick, REPORT_MS).unref()
}

export interface WatchedThread {
  readonly report: Int32Array
  /** What it may hold outside its heap (plugins.max_external_mb). */
  readonly externalMb: number
  /** Its heap limit (plugins.max_memory_mb). */
  readonly heapMb: number
  /** Ends the thread (a fault naming the plugin); resolves once it has exited. */
  readonly outgrew: (mb: number) => Promise<void>
}

interface Entry {
  readonly thread: WatchedThread
  beat: number
  beatAt: number
  /** The process's RSS, and what every thread reported outside its heap, at its latest beat. */
  rssAtBeat: number
  reportedAtBeat: number
}

const entries = new Set<Entry>()
let timer: NodeJS.Timeout | undefined
/** A thread is being ended: nothing is judged until it has exited. */
let ending = false

/** Watches a thread's memory until the returned function is called. */
export function watchMemory(thread: WatchedThread): () => void {
  const entry: Entry = {
    thread,
    beat: Atomics.load(thread.report, BEAT),
    beatAt: performance.now(),
    rssAtBeat: 0,
    reportedAtBeat: 0,
  }
  entries.add(entry)
  if (!timer) {
    timer = setInterval(sample, SAMPLE_MS)
    timer.unref()
  }
  return () => {
    entries.delete(entry)
    if (entries.size === 0) {
      clearInterval(timer)
      timer = undefined
    }
  }
}

/** The process's RSS, and what V8 accounts for in it: every watched thread's report, and this thread's own heap and external memory (MB). */
function measure(): { rss: number; accounted: number } {
  const own = getHeapStatistics()
  let accounted = (own.total_heap_size + own.external_memory) / MB
  for (const { thread } of entries)
    accounted += Atomics.load(thread.report, EXTERNAL_MB) + Atomics.load(thread.report, HEAP_MB)
  return { rss: process.memoryUsage.rss() / MB, accounted }
}

function sample(): void {
  if (ending) return
  const now = performance.now()
  const { rss, accounted } = measure()
  let held: { entry: Entry; growth: number } | undefined
  for (const entry of entries) {
    const { report, externalMb, heapMb } = entry.thread
    const beat = Atomics.load(report, BEAT)
    const external = Atomics.load(report, EXTERNAL_MB)
    if (external > externalMb) {
      end(entry, external)
      return
    }
    if (beat !== entry.beat) {
      entry.beat = beat
      entry.beatAt = now
      entry.rssAtBeat = rss
      entry.reportedAtBeat = accounted
      continue
    }
    // Not started yet (its first beat comes before the plugin's module is imported).
    if (beat === 0 || now - entry.beatAt < HELD_MS) continue
    const growth = rss - entry.rssAtBeat - Math.max(0, accounted - entry.reportedAtBeat)
    const allowance = externalMb + Math.max(0, heapMb - Atomics.load(report, HEAP_MB))
    if (growth > allowance && (!held || entry.beatAt < held.entry.beatAt)) held = { entry, growth }
  }
  if (held) end(held.entry, Math.round(held.growth))
}

function end(entry: Entry, mb: number): void {
  ending = true
  entries.delete(entry)
  void entry.thread
    .outgrew(mb)
    .catch(() => {})
    .finally(() => {
      ending = false
      // What the ended thread held is gone: every thread is measured afresh from here.
      const { rss, accounted } = measure()
      for (const each of entries) {
        each.rssAtBeat = rss
        each.reportedAtBeat = accounted
      }
    })
}
