import { readFileSync } from 'node:fs'

/**
 * What Linux's /proc says about the machine and its processes, read without any dependency or
 * child process. CPU time is in clock ticks (USER_HZ) everywhere in /proc, so a process's share
 * is its ticks against the machine's, and the tick rate itself never needs to be known.
 */

/** The machine's CPU time so far (/proc/stat), all cores together, and how many cores share it. */
export interface MachineCpu {
  readonly total: number
  /** Idle and waiting for I/O. */
  readonly idle: number
  readonly cores: number
}

/** The machine's CPU time, or undefined where /proc cannot tell (not Linux). */
export function machineCpu(): MachineCpu | undefined {
  const text = readProc('/proc/stat')
  if (!text) return undefined
  const line = text.slice(0, text.indexOf('\n'))
  // user nice system idle iowait irq softirq steal (guest time is counted in user already)
  const ticks = line.split(/\s+/).slice(1, 9).map(Number)
  if (ticks.length < 4 || ticks.some((n) => !Number.isFinite(n))) return undefined
  const cores = (text.match(/^cpu\d+ /gm) ?? []).length || 1
  return { total: sum(ticks), idle: (ticks[3] ?? 0) + (ticks[4] ?? 0), cores }
}

/** The machine's CPU use between two readings, 0–100 (% of all cores). */
export function machineCpuPercent(before: MachineCpu, after: MachineCpu): number {
  const total = after.total - before.total
  if (total <= 0) return 0
  return clamp((100 * (total - (after.idle - before.idle))) / total, 0, 100)
}

/** Memory in bytes (/proc/meminfo): used is what is not available to new work (MemTotal − MemAvailable). */
export function machineMemory(): { readonly total: number; readonly used: number } | undefined {
  const text = readProc('/proc/meminfo')
  if (!text) return undefined
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(text)?.[1])
  const total = kb('MemTotal')
  const available = kb('MemAvailable')
  if (!Number.isFinite(total) || !Number.isFinite(available)) return undefined
  return { total: total * 1024, used: (total - available) * 1024 }
}

/** A process's CPU time so far (user + system, /proc/<pid>/stat), or undefined when it is gone. */
export function processTicks(pid: number): number | undefined {
  const fields = processStat(pid)
  if (!fields) return undefined
  const ticks = Number(fields[11]) + Number(fields[12])
  return Number.isFinite(ticks) ? ticks : undefined
}

/**
 * The fields of /proc/<pid>/stat (or of a thread's, `path`) after the command name (the state
 * letter is field 0, the start time field 19), or undefined when the process is gone or /proc
 * cannot tell.
 */
export function processStat(pid: number, path = `/proc/${pid}/stat`): string[] | undefined {
  const stat = readProc(path)
  if (!stat) return undefined
  // Counted after the command name, which may itself hold spaces and parentheses.
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')
}

/** A process's resident memory in bytes (VmRSS in /proc/<pid>/status), or undefined when it is gone. */
export function processRss(pid: number): number | undefined {
  const status = readProc(`/proc/${pid}/status`)
  const kb = status ? Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1]) : Number.NaN
  // A zombie or a kernel thread has no VmRSS line: nothing resident.
  return status === undefined ? undefined : Number.isFinite(kb) ? kb * 1024 : 0
}

/**
 * A process and its descendants, at most `limit` of them: each one's children as its main thread
 * forked them (/proc/<pid>/task/<pid>/children), which is how a start script runs its game.
 */
export function processTree(pid: number, limit = 64): number[] {
  const found = [pid]
  for (let i = 0; i < found.length && found.length < limit; i++) {
    const parent = found[i] as number
    const children = readProc(`/proc/${parent}/task/${parent}/children`)
    for (const child of children?.split(' ') ?? []) {
      const n = Number(child)
      if (child && Number.isInteger(n) && !found.includes(n) && found.length < limit) found.push(n)
    }
  }
  return found
}

/**
 * A group of processes' CPU use as a percentage of one core (0–100 × cores), from one reading to
 * the next: each process's ticks since the last reading, against the machine's ticks per core.
 * A process that appeared since counts all its ticks; one that left counts none.
 */
export class ProcessCpu {
  #machine: MachineCpu | undefined
  #ticks = new Map<number, number>()

  /** Reads the processes now; the use since the last reading (undefined at the first, or where /proc cannot tell). */
  read(pids: readonly number[]): number | undefined {
    const machine = machineCpu()
    const ticks = new Map<number, number>()
    let used = 0
    for (const pid of pids) {
      const now = processTicks(pid)
      if (now === undefined) continue
      ticks.set(pid, now)
      used += Math.max(0, now - (this.#ticks.get(pid) ?? 0))
    }
    const before = this.#machine
    this.#machine = machine
    this.#ticks = ticks
    if (!before || !machine) return undefined
    const perCore = (machine.total - before.total) / machine.cores
    if (perCore <= 0) return 0
    return clamp((100 * used) / perCore, 0, 100 * machine.cores)
  }

  /** Forgets the last reading (the game ended): the next one starts afresh. */
  reset(): void {
    this.#machine = undefined
    this.#ticks = new Map()
  }
}

function readProc(path: string): string | undefined {
  try {
    return readFileSync(path, 'latin1')
  } catch {
    return undefined
  }
}

function sum(values: readonly number[]): number {
  let total = 0
  for (const value of values) total += value
  return total
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value))
}
