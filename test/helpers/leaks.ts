import { readdirSync, readFileSync, readlinkSync } from 'node:fs'
import { setTimeout as delay } from 'node:timers/promises'

/** A process the test run left behind, and what ties it to the run. */
export interface Leak {
  readonly pid: number
  readonly command: string
  readonly because: string
}

interface Proc {
  readonly pid: number
  readonly ppid: number
  readonly state: string
  readonly starttime: string
}

/**
 * Every live process this test run started, directly or not, except this one: one that carries
 * `marker` (an `NAME=value` this process put in its environment before starting anything), one
 * whose command line, working directory, environment or an open file names one of `dirs` (the
 * run's temp dirs: a game gets a filtered environment but runs in or holds files of one), and
 * every descendant of this process or of such a process (whatever its environment). Zombies
 * are dead and left out. Reads /proc once per process: a few milliseconds for a few hundred.
 */
export function findLeaks(dirs: readonly string[], marker: string): Leak[] {
  const procs = new Map<number, Proc>()
  for (const pid of livePids()) {
    const proc = readProc(pid)
    if (proc && proc.state !== 'Z') procs.set(proc.pid, proc)
  }
  // What the run keeps from file to file (keepWhatStarts), with all it started, is no leak. Judged
  // on the whole table first: deleting while walking would hide a kept parent from its children.
  const keptHere = [...procs.values()].filter((proc) => {
    const seen = new Set<number>()
    for (let up: Proc | undefined = proc; up && !seen.has(up.pid); up = procs.get(up.ppid)) {
      seen.add(up.pid)
      if (kept.get(up.pid) === up.starttime) return true
    }
    return false
  })
  for (const proc of keptHere) procs.delete(proc.pid)
  const reasons = new Map<number, string>()
  for (const proc of procs.values()) {
    if (proc.pid === process.pid) continue
    const reason = tieToRun(proc.pid, dirs, marker)
    if (reason) reasons.set(proc.pid, reason)
  }
  // Descendants: of this process (a child started with an environment of its own), or of a
  // process already tied to the run.
  for (const proc of procs.values()) {
    if (proc.pid === process.pid || reasons.has(proc.pid)) continue
    const seen = new Set<number>()
    for (let up = procs.get(proc.ppid); up && !seen.has(up.pid); up = procs.get(up.ppid)) {
      seen.add(up.pid)
      if (up.pid === process.pid || reasons.has(up.pid)) {
        reasons.set(proc.pid, `a descendant of ${up.pid === process.pid ? 'the test process' : `PID ${up.pid}`}`)
        break
      }
    }
  }
  return [...reasons].map(([pid, because]) => ({ pid, command: commandOf(pid), because }))
}

/** Processes kept from one test file to the next, by PID, with their start time (a PID is reused). */
const kept = new Map<number, string>()

/**
 * Runs `start`, and keeps the processes of this run that it started and `keeps` picks (by
 * command line and parent) out of the leak check, with everything they start: one Chromium for
 * all the browser tests of a test process (test/helpers/browser.ts), which ends with the process
 * (Chromium ends when its pipe to Playwright closes, also when this process is killed). Only what
 * appeared during `start` is kept, never a process that was already there. `release` hands them
 * back to the check (a browser that crashed: what it left behind is a leak again).
 */
export async function keepWhatStarts<T>(
  keeps: (argv: readonly string[], ppid: number) => boolean,
  start: () => Promise<T>,
): Promise<{ readonly value: T; release(): void }> {
  const marker = `SM_TEST_RUN=${process.env.SM_TEST_RUN}`
  const matching = () => {
    const found = new Map<number, string>()
    for (const pid of livePids()) {
      const proc = readProc(pid)
      if (!proc || proc.state === 'Z') continue
      const argv = readText(`/proc/${pid}/cmdline`)?.split('\0') ?? []
      if (keeps(argv, proc.ppid) && readText(`/proc/${pid}/environ`)?.split('\0').includes(marker))
        found.set(pid, proc.starttime)
    }
    return found
  }
  const before = matching()
  const value = await start()
  const mine = [...matching()].filter(([pid, starttime]) => before.get(pid) !== starttime)
  for (const [pid, starttime] of mine) kept.set(pid, starttime)
  return {
    value,
    release() {
      for (const [pid, starttime] of mine) if (kept.get(pid) === starttime) kept.delete(pid)
    },
  }
}

/**
 * Sends SIGKILL to each process and resolves once every one is gone (or a zombie, or its PID
 * now belongs to another process); rejects naming those still there after `timeoutMs`.
 */
export async function killAndWait(pids: readonly number[], timeoutMs = 10_000): Promise<void> {
  const targets = pids.map((pid) => ({ pid, starttime: readProc(pid)?.starttime }))
  for (const { pid } of targets)
    try {
      process.kill(pid, 'SIGKILL')
    } catch {}
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const left = targets.filter(({ pid, starttime }) => {
      const now = readProc(pid)
      return now !== undefined && now.state !== 'Z' && now.starttime === starttime
    })
    if (left.length === 0) return
    if (Date.now() > deadline)
      throw new Error(`still running ${timeoutMs} ms after SIGKILL: ${left.map(({ pid }) => pid).join(', ')}`)
    // Death has no event to wait on for a process that is not our child: look again shortly.
    await delay(20)
  }
}

/**
 * The live processes whose command line names `dir` (a manager's host agent is `agent.js <data
 * dir>`), whether or not they have recorded themselves anywhere yet.
 */
export function processesNaming(dir: string): number[] {
  return livePids().filter((pid) => names(readText(`/proc/${pid}/cmdline`)?.split('\0').join(' ') ?? '', dir))
}

function livePids(): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
}

/** A directory is named where its path ends at a separator: /tmp/sm-x1 does not name /tmp/sm-x. */
function names(text: string, dir: string, from = 0): boolean {
  const at = text.indexOf(dir, from)
  if (at < 0) return false
  return !/[\w.-]/.test(text[at + dir.length] ?? '') || names(text, dir, at + 1)
}

function tieToRun(pid: number, dirs: readonly string[], marker: string): string | undefined {
  const mentions = (text: string) => dirs.find((dir) => names(text, dir))
  // A path (a deleted one reads '<path> (deleted)') under a directory.
  const under = (path: string) =>
    dirs.find((dir) => path === dir || path.startsWith(`${dir}/`) || path.startsWith(`${dir} `))
  const environ = readText(`/proc/${pid}/environ`)?.split('\0') ?? []
  if (environ.includes(marker))
    return `started by this run (${marker.slice(0, marker.indexOf('='))} in its environment)`
  const cmdline = readText(`/proc/${pid}/cmdline`)?.split('\0').join(' ') ?? ''
  let dir = mentions(cmdline)
  if (dir) return `its command line names ${dir}`
  const cwd = readLink(`/proc/${pid}/cwd`)
  dir = cwd === undefined ? undefined : under(cwd)
  if (dir) return `it runs in ${cwd}`
  for (const entry of environ) {
    dir = mentions(entry)
    if (dir) return `its environment names ${dir} (${entry.slice(0, entry.indexOf('='))})`
  }
  let fds: string[] = []
  try {
    fds = readdirSync(`/proc/${pid}/fd`)
  } catch {}
  for (const fd of fds) {
    const target = readLink(`/proc/${pid}/fd/${fd}`)
    dir = target === undefined ? undefined : under(target)
    if (dir) return `it holds ${target} open`
  }
  return undefined
}

function readProc(pid: number): Proc | undefined {
  const stat = readText(`/proc/${pid}/stat`)
  if (stat === undefined) return undefined
  // Fields counted after the command name, which may itself hold spaces and parentheses.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return { pid, state: fields[0] ?? '', ppid: Number(fields[1]), starttime: fields[19] ?? '' }
}

function commandOf(pid: number): string {
  const cmdline = readText(`/proc/${pid}/cmdline`)
  return cmdline
    ? cmdline.replace(/\0+$/, '').split('\0').join(' ')
    : `[${readText(`/proc/${pid}/comm`)?.trim() ?? '?'}]`
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return undefined
  }
}

function readLink(path: string): string | undefined {
  try {
    return readlinkSync(path)
  } catch {
    return undefined
  }
}
