import { readdirSync } from 'node:fs'
import { processStat } from './proc-stats'
import { isSameProcess, processIdentity } from './process-identity'

/**
 * A game is its whole process group, not only the process we started: a server run through a
 * wrapper (`sh -c '…'`, `run.sh`, a modpack's start script) leads a group whose real game is a
 * child, and that child outlives its wrapper. A group's id is its leader's PID, and Linux never
 * hands that number to a new process while any member of the group lives, so the members of a
 * recorded game's group are found by that number alone once the leader is gone.
 */

/** The live (not zombie) processes of the process group and session `pgid` (a detached game leads both), read from /proc. */
export function groupMembers(pgid: number): number[] {
  if (!Number.isInteger(pgid) || pgid <= 0) return []
  let names: string[]
  try {
    names = readdirSync('/proc')
  } catch {
    return []
  }
  const members: number[] = []
  for (const name of names) {
    const pid = Number(name)
    if (!Number.isInteger(pid) || pid <= 0) continue
    const fields = processStat(pid)
    // Its group and its session: a game started detached leads both, and a process that reused the
    // number later and made a group of its own (setpgid) leads no session of that number.
    if (fields && fields[0] !== 'Z' && Number(fields[2]) === pgid && Number(fields[3]) === pgid) members.push(pid)
  }
  return members
}

/**
 * Whether any process of a recorded game's group still runs: its leader (the same process, by
 * identity), or, once the leader is gone, a member of the group it led. A PID held by another
 * process now means the group is long gone (its number was free to be reused), and a record from
 * another boot never matches.
 */
export function gameAlive(pid: number, identity: string | undefined): boolean {
  if (isSameProcess(pid, identity)) return true
  return leftovers(pid, identity).length > 0
}

/**
 * The processes of a recorded game's group that outlived its leader: none while the leader is
 * still the recorded process (it is the game), or when its PID is another process's now.
 */
export function leftovers(pid: number, identity: string | undefined): number[] {
  if (!Number.isInteger(pid) || pid <= 0) return []
  const leader = processStat(pid)
  if (leader && leader[0] !== 'Z') return []
  // With no identity recorded, nothing says the number is still the game's.
  if (identity === undefined || !sameBoot(identity)) return []
  return groupMembers(pid)
}

function sameBoot(identity: string): boolean {
  const now = processIdentity(process.pid)
  return now === undefined || now.slice(0, now.lastIndexOf(':')) === identity.slice(0, identity.lastIndexOf(':'))
}
