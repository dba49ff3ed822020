import { type ChildProcess, spawn } from 'node:child_process'
import { copyFileSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { isSameProcess } from '../lib/process-identity'
import { AgentFiles, type ProcessRef, RunFiles } from '../services/servers/supervisor/run-files'
import { median } from './harness'
import { cli, fakeServer, nextSamples, stopServers } from './servers.bench'

/** What a process holds in memory (/proc/<pid>/smaps_rollup), in KiB. */
export interface Footprint {
  /** Proportional set size: its private pages, and its share of each page it shares. */
  readonly pss: number
  /** Unique set size: its private pages alone (Private_Clean + Private_Dirty). */
  readonly uss: number
  readonly rss: number
}

/** A process's footprint, or undefined when it is gone. */
export function footprint(pid: number): Footprint | undefined {
  let text: string
  try {
    text = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8')
  } catch {
    return undefined
  }
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0)
  return { pss: kb('Pss'), uss: kb('Private_Clean') + kb('Private_Dirty'), rss: kb('Rss') }
}

/** What supervision holds at one number of running servers (medians of the readings, KiB). */
export interface SupervisionPoint extends Footprint {
  readonly servers: number
  /** The supervision processes summed: the agent, and any supervisor a state file names besides it. */
  readonly processes: number
  /** A bare `node` idling on a timer, read alongside. */
  readonly bare: Footprint
}

/**
 * The memory supervision takes as running servers are added: fake Bedrock servers are started
 * one after another in one data directory, with the default settings (so each is sampled); at each
 * count of `counts`, once every server has handed its followers `samples` more resource samples,
 * the supervision processes (the host agent of agent.json, and every other supervisor a server's
 * state.json names) are read `readings` times a second apart, their PSS, USS and RSS summed, and
 * a bare `node` idling on a timer is read alongside as the floor. The games are never counted.
 *
 * The games run a copy of the node binary: a real game server shares no code with the agent, and
 * 50 fake games running the same binary would each take a share of its pages, so the agent's PSS
 * would shrink as servers are added and hide what each one costs.
 */
export async function supervisionMemoryBench(
  dir: string,
  counts: readonly number[],
  options: { readings?: number; samples?: number; intervalS?: number } = {},
): Promise<SupervisionPoint[]> {
  const { readings = 10, samples = 2, intervalS } = options
  const data = join(dir, 'supervision')
  const gameNode = join(dir, 'supervision-game-node')
  copyFileSync(process.execPath, gameNode)
  const bare: ChildProcess = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1e9)'], { stdio: 'ignore' })
  const started: string[] = []
  const points: SupervisionPoint[] = []
  try {
    // Quick mode's runs: samples a second apart, not waited for at the default 5 s.
    if (intervalS !== undefined) await cli(data, ['setting', 'set', 'metrics.interval_s', String(intervalS)])
    for (const count of counts) {
      while (started.length < count) {
        const name = `s${started.length}`
        const server = fakeServer(join(`${data}-servers`, name), gameNode)
        await cli(data, ['server', 'add', name, '--dir', server])
        started.push(name)
        await cli(data, ['server', 'start', name])
      }
      await Promise.all(started.map((name) => nextSamples(data, name, samples)))
      const pids = supervisionPids(data, started)
      const taken: Footprint[] = []
      const floor: Footprint[] = []
      for (let r = 0; r < readings; r++) {
        if (r > 0) await sleep(1000)
        const each = pids.map(footprint)
        if (each.some((f) => f === undefined)) throw new Error('a supervision process ended during the benchmark')
        taken.push(sum(each as Footprint[]))
        const b = bare.pid === undefined ? undefined : footprint(bare.pid)
        if (!b) throw new Error('the bare node process ended during the benchmark')
        floor.push(b)
      }
      points.push({ servers: count, processes: pids.length, ...medians(taken), bare: medians(floor) })
    }
    return points
  } finally {
    bare.kill()
    await stopServers(data, started)
    rmSync(gameNode, { force: true })
    rmSync(data, { recursive: true, force: true })
    rmSync(`${data}-servers`, { recursive: true, force: true })
  }
}

/**
 * The supervision processes of the servers: the data directory's agent and the distinct
 * supervisors their state files name (with the agent, that same one). A game among them is an error.
 */
function supervisionPids(data: string, names: readonly string[]): number[] {
  const states = names.map((name) => RunFiles.of(data, name).readState())
  const agent = new AgentFiles(data).readRecord()
  const pids = new Set<number>()
  for (const ref of [agent, ...states.map((state) => state?.supervisor)]) if (alive(ref)) pids.add(ref.pid)
  if (!agent || !pids.has(agent.pid)) throw new Error(`no host agent serves ${data}`)
  const games = new Set(states.map((state) => state?.game?.pid))
  if ([...pids].some((pid) => games.has(pid))) throw new Error('a game is recorded as its own supervisor')
  return [...pids]
}

function alive(ref: ProcessRef | undefined): ref is ProcessRef {
  return ref !== undefined && isSameProcess(ref.pid, ref.identity)
}

function sum(footprints: readonly Footprint[]): Footprint {
  return footprints.reduce((a, b) => ({ pss: a.pss + b.pss, uss: a.uss + b.uss, rss: a.rss + b.rss }), {
    pss: 0,
    uss: 0,
    rss: 0,
  })
}

function medians(footprints: readonly Footprint[]): Footprint {
  return {
    pss: median(footprints.map((f) => f.pss)),
    uss: median(footprints.map((f) => f.uss)),
    rss: median(footprints.map((f) => f.rss)),
  }
}
