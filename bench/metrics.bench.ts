import { type ChildProcess, spawn } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { processRss } from '../lib/proc-stats'
import { RunFiles } from '../services/servers/supervisor/run-files'
import { median } from './harness'
import { cli, fakeServer, nextSamples, stopServers } from './servers.bench'

/** Resident memory of a process (VmRSS), in KiB; NaN when it is gone. */
function rssKb(pid: number | undefined): number {
  return pid === undefined ? Number.NaN : (processRss(pid) ?? Number.NaN) / 1024
}

/** A fake Bedrock server directory with `files` small files in a world, so that its walk has work. */
function serverWithFiles(dir: string, files: number): string {
  fakeServer(dir)
  const world = join(dir, 'worlds', 'bench', 'db')
  mkdirSync(world, { recursive: true })
  for (let i = 0; i < files; i++) writeFileSync(join(world, `${String(i).padStart(6, '0')}.ldb`), 'x'.repeat(512))
  return dir
}

/**
 * The memory sampling adds to the host agent: `servers` game servers run under the agent of one
 * data directory with sampling on (every second, their directories of `files` files walked every
 * second, a retention of 10 s so compactions run too) and as many under the agent of another with
 * it off, at once; once those with it on have taken `count` samples each, each data directory's
 * supervision processes (the distinct PIDs its servers' state files name: its agent) are read
 * `readings` times a second apart, their resident memory summed. A bare `node` process idling on
 * a timer is read alongside, as the floor.
 */
export async function samplingMemoryBench(
  dir: string,
  options: { servers?: number; count?: number; files?: number; readings?: number; stress?: boolean } = {},
) {
  const { servers = 5, count = 30, files = 2000, readings = 10, stress = true } = options
  const sides = { off: join(dir, 'sampling-off'), on: join(dir, 'sampling-on') }
  // The stress settings in one merged `setting set metrics` (one cold CLI process, not four).
  const stressed = { interval_s: 1, disk_interval_s: 1, retention: { full_rate_s: 10, bucket_s: 2 } }
  const settings: Record<keyof typeof sides, [string, string][]> = {
    off: [['metrics.enabled', 'false']],
    on: stress ? [['metrics', JSON.stringify(stressed)]] : [],
  }
  const bare: ChildProcess = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' })
  const started: [string, string][] = []
  try {
    for (const [side, data] of Object.entries(sides) as [keyof typeof sides, string][]) {
      for (const [key, value] of settings[side]) await cli(data, ['setting', 'set', key, value])
      for (let i = 0; i < servers; i++) {
        await cli(data, ['server', 'add', `s${i}`, '--dir', serverWithFiles(join(`${data}-servers`, `s${i}`), files)])
        await cli(data, ['server', 'start', `s${i}`])
        started.push([data, `s${i}`])
      }
    }
    await Promise.all(Array.from({ length: servers }, (_, i) => nextSamples(sides.on, `s${i}`, count)))
    // Every server of a data directory names the same agent: each process is counted once.
    const supervision = (data: string) => [
      ...new Set(Array.from({ length: servers }, (_, i) => RunFiles.of(data, `s${i}`).readState()?.supervisor?.pid)),
    ]
    const total = (pids: (number | undefined)[]) => pids.reduce((sum: number, pid) => sum + rssKb(pid), 0)
    const agents = { off: supervision(sides.off), on: supervision(sides.on) }
    const off: number[] = []
    const on: number[] = []
    const floor: number[] = []
    for (let r = 0; r < readings; r++) {
      off.push(total(agents.off))
      on.push(total(agents.on))
      floor.push(rssKb(bare.pid))
      await sleep(1000)
    }
    if ([...off, ...on].some(Number.isNaN)) throw new Error('a supervision process ended during the benchmark')
    return {
      offKb: median(off),
      onKb: median(on),
      bareKb: median(floor),
      processes: { off: agents.off.length, on: agents.on.length },
      servers,
      count,
      files,
    }
  } finally {
    bare.kill()
    for (const data of Object.values(sides))
      await stopServers(
        data,
        started.filter(([d]) => d === data).map(([, name]) => name),
      )
  }
}
