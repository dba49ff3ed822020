import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { promisify } from 'node:util'
import { isSameProcess } from '../lib/process-identity'
import { SupervisorClient } from '../services/servers/supervisor/client'
import { AgentFiles, RunFiles } from '../services/servers/supervisor/run-files'
import { median } from './harness'

const exec = promisify(execFile)
const ROOT = join(__dirname, '..', '..')
const CLI = join(ROOT, 'bin', 'run.js')
const FAKE = join(ROOT, 'test', 'fixtures', 'fake-bedrock.js')

/** A generated Bedrock-like world: random `.ldb` tables (incompressible) and a LevelDB log, plus JSON-ish text. */
export function generateWorld(dir: string, megabytes: number): { bytes: number; files: number } {
  const db = join(dir, 'db')
  mkdirSync(db, { recursive: true })
  let bytes = 0
  let files = 0
  const tables = Math.max(1, Math.round((megabytes * 0.78) / 2))
  for (let i = 0; i < tables; i++) {
    const data = randomBytes(2 * 1024 * 1024)
    writeFileSync(join(db, `${String(i).padStart(6, '0')}.ldb`), data)
    bytes += data.length
    files++
  }
  const log = randomBytes(3 * 1024 * 1024)
  writeFileSync(join(db, '000999.log'), log)
  bytes += log.length
  files++
  const texts = Math.max(1, Math.round((megabytes * 0.2 * 1024) / 56))
  const word = () => ['block', 'entity', 'chunk', 'biome', 'player', 'pos', 'rot'][Math.floor(Math.random() * 7)]
  for (let i = 0; i < texts; i++) {
    let text = ''
    while (text.length < 56 * 1024)
      text += `{"${word()}":${Math.floor(Math.random() * 1e6)},"${word()}":"${word()}-${i}"},\n`
    writeFileSync(join(dir, `data-${i}.json`), text)
    bytes += text.length
    files++
  }
  writeFileSync(join(dir, 'level.dat'), randomBytes(4096))
  return { bytes: bytes + 4096, files: files + 1 }
}

interface Run {
  readonly seconds: number
  readonly maxRssMb: number
}

/** Runs a command, timing it; a Node child reports its own peak RSS on its last stdout line. */
async function timed(command: string, args: string[], cwd: string): Promise<Run> {
  const began = process.hrtime.bigint()
  const { stdout } = await exec(command, args, { cwd, maxBuffer: 64 * 1024 * 1024 })
  const seconds = Number(process.hrtime.bigint() - began) / 1e9
  const rss = /maxRssKb=(\d+)/.exec(stdout)?.[1]
  return { seconds, maxRssMb: rss ? Number(rss) / 1024 : Number.NaN }
}

const nodeScript = (body: string) => [
  '-e',
  `(async () => { ${body}; console.log('maxRssKb=' + process.resourceUsage().maxRSS) })().catch((e) => { console.error(e); process.exit(1) })`,
]

/**
 * World backup and restore of a generated world against Info-ZIP in the same run: our streaming
 * zip (LevelDB tables stored, text deflated at 6) vs `zip -r -6 -n .ldb:.log` (the same choice)
 * and plain `zip -r -6`; our extraction vs `unzip`. Best of `rounds` runs each, alternating.
 */
export async function worldArchiveBench(dir: string, megabytes: number, rounds = 2) {
  const world = join(dir, 'world')
  const generated = generateWorld(world, megabytes)
  const archive = join(ROOT, 'dist', 'services', 'servers', 'backups', 'archive.js')
  const out = (name: string) => join(dir, name)
  const ours: Run[] = []
  const zipSame: Run[] = []
  const zipPlain: Run[] = []
  for (let round = 0; round < rounds; round++) {
    for (const f of ['ours.zip', 'same.zip', 'plain.zip']) rmSync(out(f), { force: true })
    ours.push(
      await timed(
        process.execPath,
        nodeScript(
          `const a = require(${JSON.stringify(archive)}); await a.writeZip(${JSON.stringify(out('ours.zip'))}, a.listTree(${JSON.stringify(world)}))`,
        ),
        dir,
      ),
    )
    zipSame.push(await timed('zip', ['-q', '-r', '-6', '-n', '.ldb:.log', out('same.zip'), '.'], world))
    zipPlain.push(await timed('zip', ['-q', '-r', '-6', out('plain.zip'), '.'], world))
  }
  const oursX: Run[] = []
  const unzipX: Run[] = []
  for (let round = 0; round < rounds; round++) {
    for (const d of ['x-ours', 'x-unzip']) rmSync(out(d), { recursive: true, force: true })
    oursX.push(
      await timed(
        process.execPath,
        nodeScript(
          `await require(${JSON.stringify(archive)}).extractZip(${JSON.stringify(out('ours.zip'))}, ${JSON.stringify(out('x-ours'))})`,
        ),
        dir,
      ),
    )
    unzipX.push(await timed('unzip', ['-q', out('ours.zip'), '-d', out('x-unzip')], dir))
  }
  const best = (runs: Run[]) => runs.reduce((a, b) => (b.seconds < a.seconds ? b : a))
  return {
    generated,
    ours: best(ours),
    zipSame: best(zipSame),
    zipPlain: best(zipPlain),
    oursX: best(oursX),
    unzipX: best(unzipX),
  }
}

/** A fake bedrock server directory (the test fixture, run by `node`). */
export function fakeServer(dir: string, node = process.execPath): string {
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'bedrock_server'), `#!/bin/sh\nexec '${node}' '${FAKE}' "$@"\n`, { mode: 0o755 })
  writeFileSync(join(dir, 'server.properties'), 'level-name=Bedrock level\n')
  return dir
}

/** Runs the CLI on `dataDir` (no default plugins): its output. */
export async function cli(dataDir: string, args: string[]): Promise<string> {
  const { stdout } = await exec(process.execPath, [CLI, ...args], {
    env: { ...process.env, SM_DATA_DIR: dataDir, SM_DEFAULT_PLUGINS: 'off' },
    maxBuffer: 64 * 1024 * 1024,
  })
  return stdout
}

/** Resolves once a server's supervision has handed a follower `count` more resource samples. */
export async function nextSamples(dataDir: string, name: string, count: number): Promise<void> {
  const client = await SupervisorClient.connect(RunFiles.of(dataDir, name), name)
  if (!client) throw new Error(`no supervisor for ${name}`)
  let seen = 0
  try {
    await new Promise<void>((resolve, reject) => {
      client.onClose(() => reject(new Error(`the supervision of ${name} ended`)))
      client
        .subscribe(
          0,
          () => {},
          () => {},
          () => {
            if (++seen >= count) resolve()
          },
        )
        .catch(reject)
    })
  } finally {
    client.close()
  }
}

/**
 * Kills the servers `names` of a data directory (through the CLI, so that no crash policy
 * restarts them), waits for its host agent to end by itself once it supervises nothing, and ends
 * with SIGKILL whatever outlives that: a game or supervision process recorded before the kills
 * that is still the same process.
 */
export async function stopServers(dataDir: string, names: readonly string[]): Promise<void> {
  const agent = new AgentFiles(dataDir).readRecord()
  const states = names.map((name) => RunFiles.of(dataDir, name).readState())
  for (const name of names) await cli(dataDir, ['server', 'kill', name]).catch(() => {})
  const left = () =>
    [agent, ...states.flatMap((state) => [state?.supervisor, state?.game])]
      .filter((ref) => ref !== undefined && isSameProcess(ref.pid, ref.identity))
      .map((ref) => ref?.pid as number)
  // A process's end has no event to wait on when it is not our child: look again shortly.
  for (let waited = 0; left().length > 0 && waited < 10_000; waited += 100) await sleep(100)
  // The agent first, so that no game it still supervises is restarted as a crash.
  for (const pid of new Set(left()))
    try {
      process.kill(pid, 'SIGKILL')
    } catch {}
}

/** `server list --json` over 50 (`servers`) servers: with 10 (`running`) running vs none, alternating, median of `rounds` each. */
export async function serverListBench(dir: string, rounds = 9, servers = 50, running = 10) {
  const idle = join(dir, 'idle')
  const busy = join(dir, 'busy')
  for (const data of [idle, busy])
    for (let i = 0; i < servers; i++)
      await cli(data, ['server', 'add', `s${i}`, '--dir', fakeServer(join(`${data}-servers`, `s${i}`))])
  for (let i = 0; i < running; i++) await cli(busy, ['server', 'start', `s${i}`])
  const a: number[] = []
  const b: number[] = []
  try {
    for (let round = 0; round < rounds; round++) {
      for (const [data, into] of round % 2
        ? ([
            [busy, b],
            [idle, a],
          ] as const)
        : ([
            [idle, a],
            [busy, b],
          ] as const)) {
        const began = process.hrtime.bigint()
        await cli(data, ['server', 'list', '--json'])
        into.push(Number(process.hrtime.bigint() - began) / 1e6)
      }
    }
  } finally {
    for (let i = 0; i < running; i++) await cli(busy, ['server', 'kill', `s${i}`]).catch(() => {})
  }
  return { idleMs: median(a), busyMs: median(b) }
}

/** `send list` to the reply line reaching a follower, through the supervisor's socket: median of `n` after `warmup` more. */
export async function consoleRoundTripBench(dir: string, n = 50, warmup = 10) {
  const data = join(dir, 'console')
  await cli(data, ['server', 'add', 'rt', '--dir', fakeServer(join(`${data}-servers`, 'rt'))])
  await cli(data, ['server', 'start', 'rt'])
  const files = RunFiles.of(data, 'rt')
  const sender = await SupervisorClient.connect(files, 'rt')
  const follower = await SupervisorClient.connect(files, 'rt')
  if (!sender || !follower) throw new Error('no supervisor')
  let waiting: (() => void) | undefined
  await follower.subscribe(
    0,
    (line) => {
      if (/players online/.test(line)) waiting?.()
    },
    () => {},
  )
  const times: number[] = []
  try {
    for (let i = 0; i < warmup + n; i++) {
      const seen = new Promise<void>((resolve) => {
        waiting = resolve
      })
      const began = process.hrtime.bigint()
      await sender.request('send', { command: 'list' })
      await seen
      if (i >= warmup) times.push(Number(process.hrtime.bigint() - began) / 1e6)
    }
  } finally {
    sender.close()
    follower.close()
    await cli(data, ['server', 'stop', 'rt'])
  }
  return { medianMs: median(times), runs: times.length }
}
