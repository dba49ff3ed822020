import { readFileSync } from 'node:fs'

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

/** The state letter of a process (R, S, Z, ...), where /proc tells it. */
export function processState(pid: number): string | undefined {
  return procStat(pid)?.state
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

function procStat(pid: number): { state: string; starttime: string } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // Fields counted after the command name, which may itself hold spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return { state: fields[0] ?? '', starttime: fields[19] ?? '' }
  } catch {
    return undefined
  }
}
