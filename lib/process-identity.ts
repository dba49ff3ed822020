import { readdirSync, readFileSync } from 'node:fs'
import { processStat } from './proc-stats'

/**
 * Who a process is, beyond its PID: `<boot id>:<start time in clock ticks>` (Linux /proc). A PID
 * reused by another process, or a PID from before a reboot, does not match a recorded identity.
 */
export function processIdentity(pid: number): string | undefined {
  const stat = procStat(pid)
  if (!stat) return undefined
  try {
    return `${readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()}:${stat.starttime}`
  } catch {
    return undefined
  }
}

let own: { pid: number; identity: string | undefined } | undefined

/** This process as a lock or record names it: its PID and identity (read once; a fork has its own PID). */
export function ownProcess(): { readonly pid: number; readonly identity: string | undefined } {
  if (own?.pid !== process.pid) own = { pid: process.pid, identity: processIdentity(process.pid) }
  return own
}

/** The state letter of a process (R, S, Z, ...), where /proc tells it. */
export function processState(pid: number): string | undefined {
  return procStat(pid)?.state
}

/** Whether a process of that PID exists (one we may not signal counts); what is no PID is no process's. */
export function pidExists(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * Whether `pid` is still the process whose identity was recorded: alive, not a zombie, and with
 * the same boot id and start time. Where /proc cannot tell (not Linux), a live PID counts.
 */
export function isSameProcess(pid: number, identity: string | undefined): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false
  try {
    process.kill(pid, 0)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false
  }
  const stat = procStat(pid)
  if (stat?.state === 'Z') return false
  const now = processIdentity(pid)
  return now === undefined || identity === undefined || now === identity
}

/**
 * Whether `pid` is a process being torn down: its main thread has ended (a zombie, so
 * isSameProcess says it is gone) while its other threads are still exiting. Until the last one
 * has, its file descriptors stay open: a UNIX socket it listened on still accepts connections,
 * which nobody will ever answer (a killed Node process, with its worker and libuv threads, takes
 * a few hundred milliseconds to get there, longer on a busy machine).
 */
export function isDying(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0 || procStat(pid)?.state !== 'Z') return false
  try {
    return readdirSync(`/proc/${pid}/task`).some((task) => {
      const fields = processStat(Number(task), `/proc/${pid}/task/${task}/stat`)
      return fields !== undefined && fields[0] !== 'Z'
    })
  } catch {
    return false
  }
}

/** How long a process being torn down is waited for (a machine that takes longer is in trouble of its own). */
const DYING_WAIT_MS = 10_000

/**
 * Resolves once a recorded process is not being torn down (isDying): before anyone connects to
 * a socket it served, or takes it over, so that they never talk to a socket about to vanish.
 */
export async function untilNotDying(ref: { readonly pid: number } | undefined): Promise<void> {
  if (!ref) return
  const deadline = Date.now() + DYING_WAIT_MS
  while (isDying(ref.pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10))
}

function procStat(pid: number): { state: string; starttime: string } | undefined {
  const fields = processStat(pid)
  return fields && { state: fields[0] ?? '', starttime: fields[19] ?? '' }
}

/**
 * File descriptors above stderr that this process would pass on to a child: those without
 * O_CLOEXEC, usually inherited from whoever started us (a shell's or CI runner's pipes). A
 * detached child that keeps one open can make its starter's starter wait forever for EOF.
 */
export function inheritableFds(): number[] {
  const O_CLOEXEC = 0o2000000
  const fds: number[] = []
  let names: string[]
  try {
    names = readdirSync('/proc/self/fdinfo')
  } catch {
    return fds
  }
  for (const name of names) {
    const fd = Number(name)
    if (!Number.isInteger(fd) || fd <= 2) continue
    try {
      const flags = /^flags:\s*([0-7]+)/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'))?.[1]
      if (flags !== undefined && (Number.parseInt(flags, 8) & O_CLOEXEC) === 0) fds.push(fd)
    } catch {}
  }
  return fds
}

/**
 * A `stdio` array for `spawn` that gives the child `base` and /dev/null in place of every fd
 * this process would otherwise leak into it (see inheritableFds). Close `nullFd` after spawning.
 */
export function sealedStdio<T>(base: readonly T[], nullFd: number): (T | number | 'ignore')[] {
  const stdio: (T | number | 'ignore')[] = [...base]
  for (const fd of inheritableFds()) {
    if (fd < base.length || fd === nullFd) continue
    while (stdio.length < fd) stdio.push('ignore')
    stdio[fd] = nullFd
  }
  return stdio
}
