import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { BridgeClient } from '../services/bridge/client'
import { NatsBridgeClient } from '../services/bridge/nats-client'
import { natsServerBinary } from '../test/helpers/nats-binary'
import { median } from './harness'

const ROOT = join(__dirname, '..', '..')
const CLI = join(ROOT, 'bin', 'run.js')
const FAKE = join(ROOT, 'test', 'fixtures', 'fake-bedrock.js')
const HOST = 'bench'

export interface RoundTrip {
  /** Over the host agent's local socket. */
  readonly socketMs: number
  /** Over NATS, as the manager asks it (`sm.agent.<host>.req.<ns>.<name>`). */
  readonly natsMs: number
}

export interface NatsBenchResult {
  readonly requests: number
  /** `settings:get`, whose handler costs next to nothing: the transport's round trip (medians, ms). */
  readonly bare: RoundTrip
  /** `servers:status` of the running server: its handler looks at the run (files, its supervisor). */
  readonly status: RoundTrip
  /** The same asked of the manager, which routes it to the host over NATS. */
  readonly routedMs: number
  readonly lines: number
  /** `servers:send list` on the host's socket to the reply line reaching a follower (median, ms). */
  readonly consoleHereMs: number
  readonly consoleManagerMs: number
}

/**
 * Issue 22's two NATS figures, from real processes on loopback: a broker (nats-server), a manager
 * started with `--nats` and a host agent (`agent start --nats … --name bench`) on data
 * directories of their own, one fake Bedrock server on the host.
 *
 * - A command round trip to the host agent, as the manager sends it (a request on
 *   `sm.agent.bench.req.<ns>.<name>`) against the same command over the agent's own local socket,
 *   in alternating halves: `settings:get`, whose handler costs next to nothing (the transport's
 *   figure, which the goal is about), and `servers:status` of the running server, whose handler
 *   looks at the run on both paths alike; for context, `servers:status` asked of the manager's
 *   socket, which routes it to the host.
 * - A console line from the game to a following client on the manager: one `list` sent on the
 *   host, its reply line timed to a follower on the host's socket and to one on the manager's
 *   socket (relayed over NATS) at once.
 */
export async function natsBench(dir: string, requests: number, lines: number): Promise<NatsBenchResult> {
  const stops: (() => Promise<void>)[] = []
  try {
    const broker = await spawnUntil(
      natsServerBinary(),
      ['-a', '127.0.0.1', '-p', '-1'],
      {},
      /Server is ready/,
      'stderr',
    )
    stops.push(() => stopProcess(broker.child))
    const port = /Listening for client connections on \S+:(\d+)/.exec(broker.said)?.[1]
    if (!port) throw new Error(`nats-server did not say its port:\n${broker.said}`)
    const url = `nats://127.0.0.1:${port}`

    const panel = join(dir, 'nats-panel')
    const host = join(dir, 'nats-host')
    cliOk(panel, ['setting', 'set', 'web.port', '0'])
    const manager = await spawnUntil(
      process.execPath,
      [CLI, 'start', '--nats', url],
      { SM_DATA_DIR: panel },
      /^NATS: on the broker/m,
    )
    stops.push(() => stopProcess(manager.child))
    const there = await connected(panel)
    stops.push(async () => there.close())
    // The manager knows the host from its first beat on.
    const online = new Promise<void>((resolve) => {
      const listening = there.on('nats:host_online', (payload) => {
        if ((payload as { name?: string }).name !== HOST) return
        listening.dispose()
        resolve()
      })
    })
    const agent = await spawnUntil(
      process.execPath,
      [CLI, 'agent', 'start', '--nats', url, '--name', HOST],
      { SM_DATA_DIR: host },
      /^ready/m,
    )
    stops.push(() => stopProcess(agent.child))
    if (!/^NATS: on the broker/m.test(agent.said))
      throw new Error(`the host agent is not on the broker:\n${agent.said}`)
    await online
    const here = await connected(host)
    stops.push(async () => here.close())
    cliOk(panel, ['server', 'add', 'far', '--dir', fakeServer(join(dir, 'nats-game')), '--host', HOST])
    cliOk(panel, ['server', 'start', 'far'])
    stops.push(async () => cliOk(panel, ['server', 'stop', 'far']))

    const nats = await NatsBridgeClient.connect({ url, prefix: `sm.agent.${HOST}` })
    stops.push(() => nats.close())
    const time = async (call: () => Promise<unknown>, n: number) => {
      const samples: number[] = []
      for (let i = 0; i < n; i++) {
        const began = process.hrtime.bigint()
        await call()
        samples.push(Number(process.hrtime.bigint() - began) / 1e6)
      }
      return samples
    }
    /** The socket and NATS medians of one command, in alternating halves (drift on the machine hits both alike). */
    const both = async (command: string, payload: unknown) => {
      const socket = () => here.request(command, payload, 'cli:bench')
      const overNats = () => nats.request(command, payload, 'cli:bench')
      await time(socket, Math.max(1, requests / 10))
      await time(overNats, Math.max(1, requests / 10))
      const half = Math.max(1, requests / 2)
      const a = await time(socket, half)
      const b = await time(overNats, half)
      a.push(...(await time(socket, half)))
      b.push(...(await time(overNats, half)))
      return { socketMs: median(a), natsMs: median(b) }
    }
    const bare = await both('settings:get', { key: 'servers.stop_timeout_s' })
    const status = await both('servers:status', { name: 'far' })
    const routed = () => there.request('servers:status', { name: 'far' }, 'cli:bench')
    await time(routed, Math.max(1, requests / 10))
    const routedMs = median(await time(routed, requests))

    const seen: { here: number[]; manager: number[] } = { here: [], manager: [] }
    let began = 0n
    let waiting: { here: boolean; manager: boolean; done: () => void } | undefined
    const follow = (client: BridgeClient, side: 'here' | 'manager') =>
      client.on('servers:console', (payload) => {
        const { serverName, line } = payload as { serverName: string; line: string }
        if (!waiting || serverName !== 'far' || !/players online/.test(line) || waiting[side]) return
        seen[side].push(Number(process.hrtime.bigint() - began) / 1e6)
        waiting[side] = true
        if (waiting.here && waiting.manager) waiting.done()
      })
    const followers = [follow(here, 'here'), follow(there, 'manager')]
    try {
      const warmup = Math.max(1, lines / 10)
      for (let i = 0; i < warmup + lines; i++) {
        const both = new Promise<void>((done) => {
          waiting = { here: false, manager: false, done }
        })
        began = process.hrtime.bigint()
        await here.request('servers:send', { name: 'far', command: 'list' }, 'cli:bench')
        await both
        waiting = undefined
        if (i < warmup) {
          seen.here.pop()
          seen.manager.pop()
        }
      }
    } finally {
      for (const follower of followers) follower.dispose()
    }
    return {
      requests,
      bare,
      status,
      routedMs,
      lines,
      consoleHereMs: median(seen.here),
      consoleManagerMs: median(seen.manager),
    }
  } finally {
    for (const stop of stops.reverse()) await stop().catch((error) => console.error('nats bench: clean-up:', error))
  }
}

async function connected(dataDir: string): Promise<BridgeClient> {
  const client = await BridgeClient.connect(dataDir)
  if (!client) throw new Error(`no manager answers on ${dataDir}`)
  return client
}

function fakeServer(dir: string): string {
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'bedrock_server'), `#!/bin/sh\nexec '${process.execPath}' '${FAKE}' "$@"\n`, { mode: 0o755 })
  return dir
}

function cli(dataDir: string, args: string[]) {
  return spawnSync(process.execPath, [CLI, ...args], {
    env: { ...process.env, SM_DATA_DIR: dataDir },
    encoding: 'utf8',
  })
}

function cliOk(dataDir: string, args: string[]): void {
  const result = cli(dataDir, args)
  if (result.status !== 0) throw new Error(`server-manager ${args.join(' ')} failed: ${result.stderr}`)
}

/** Spawns a process and resolves once `ready` shows in its output (all it said so far included). */
function spawnUntil(
  command: string,
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
  stream: 'stdout' | 'stderr' = 'stdout',
): Promise<{ child: ChildProcess; said: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: { ...process.env, ...env } })
    let said = ''
    const heard = (chunk: Buffer, from: string) => {
      said += chunk
      if (from === stream && ready.test(said)) resolve({ child, said })
    }
    child.stdout?.on('data', (chunk: Buffer) => heard(chunk, 'stdout'))
    child.stderr?.on('data', (chunk: Buffer) => heard(chunk, 'stderr'))
    child.on('exit', (code) => reject(new Error(`${command} ${args.join(' ')} exited with ${code}: ${said}`)))
  })
}

function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => {
    child.removeAllListeners('exit')
    child.once('exit', () => resolve())
    child.kill('SIGTERM')
  })
}
