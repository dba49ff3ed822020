import type { ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { setImmediate } from 'node:timers/promises'
import { LogTail } from '../../lib/log-tail'
import { groupMembers, leftovers } from '../../lib/process-group'
import { isSameProcess, processIdentity } from '../../lib/process-identity'
import { BridgeClient } from '../../services/bridge/client'
import { managerFiles, readManagerInfo } from '../../services/bridge/socket-files'
import { SERVER_STATUS_EXIT } from '../../services/cli/server-status-exit'
import type { ServerStatus } from '../../services/servers/contract'
import { SupervisorClient } from '../../services/servers/supervisor/client'
import type { RunStatus, ServerSample } from '../../services/servers/supervisor/protocol'
import { AgentFiles, RunFiles, type StatusEntry } from '../../services/servers/supervisor/run-files'
import { cliIn } from './cli-in-process'
import { killAndWait, processesNaming } from './leaks'
import { ROOT, type RunResult } from './run'

/** How a helper runs a command: a process (cli), or in-process to the running manager (cliIn). */
export type Runner = (dataDir: string, args: readonly string[]) => Promise<RunResult>

import { afterItsUser } from './run-end'
import { tempDir } from './temp-dir'
import { jarBytes } from './zip'

export const FAKE_BEDROCK = join(ROOT, 'test', 'fixtures', 'fake-bedrock.js')
export const FAKE_JAVA = join(ROOT, 'test', 'fixtures', 'fake-java.js')

/** A directory laid out like an unpacked Bedrock server whose `bedrock_server` is the fake (test/fixtures). */
export function fakeBedrockDir(options: { level?: string; env?: Record<string, string> } = {}): string {
  const dir = join(tempDir('sm-bds-'), 'bds')
  mkdirSync(dir, { recursive: true })
  writeFileSync(
    join(dir, 'bedrock_server'),
    `#!/bin/sh\n${exportLines(options.env)}exec '${process.execPath}' '${FAKE_BEDROCK}' "$@"\n`,
    {
      mode: 0o755,
    },
  )
  writeFileSync(join(dir, 'server.properties'), `server-name=Test\nlevel-name=${options.level ?? 'Bedrock level'}\n`)
  return dir
}

/**
 * A directory laid out like a Java Edition server (`server.jar`, its EULA accepted or not), and a
 * `java` that runs the fake (test/fixtures/fake-java.js) whatever its arguments, as
 * `java -Xmx1G -jar server.jar nogui` would run the real one.
 */
export function fakeJavaDir(options: { eula?: boolean; level?: string; env?: Record<string, string> } = {}): {
  dir: string
  java: string
} {
  const root = tempDir('sm-java-')
  const dir = join(root, 'server')
  mkdirSync(join(root, 'bin'), { recursive: true })
  mkdirSync(dir)
  // A jar (a zip with a manifest), though what runs is the fake: test/fixtures/fake-java.js.
  writeFileSync(join(dir, 'server.jar'), jarBytes({ 'README.txt': 'the fake java runs test/fixtures/fake-java.js\n' }))
  if (options.eula !== undefined) writeFileSync(join(dir, 'eula.txt'), `eula=${options.eula}\n`)
  writeFileSync(join(dir, 'server.properties'), `level-name=${options.level ?? 'world'}\nmax-players=20\n`)
  const java = join(root, 'bin', 'java')
  // It answers `java -version` as a JDK does (on stderr), as the manager asks before a start.
  const version = `[ "$1" = -version ] && { echo 'openjdk version "21.0.5" 2024-10-15' >&2; exit 0; }\n`
  writeFileSync(
    java,
    `#!/bin/sh\n${version}${exportLines(options.env)}exec '${process.execPath}' '${FAKE_JAVA}' "$@"\n`,
    {
      mode: 0o755,
    },
  )
  return { dir, java }
}

function exportLines(env: Record<string, string> = {}): string {
  return Object.entries(env)
    .map(([k, v]) => `export ${k}='${v}'\n`)
    .join('')
}

/**
 * `server add <name>` of a console game the tests wrote as `game.js` in `dir`, run by this Node
 * (a generic server), with `extra` flags (its ready line, stop command, hot-backup commands...).
 */
export function nodeGameArgs(name: string, dir: string, ...extra: string[]): string[] {
  return ['server', 'add', name, '--dir', dir, '--command', process.execPath, '--arg', 'game.js', ...extra]
}

/** A server's state file as its supervisor wrote it. */
export function runState(dataDir: string, name: string) {
  return RunFiles.of(dataDir, name).readState()
}

/**
 * Follows a running server through its supervisor's socket and resolves when a status change
 * (or the status at subscription) matches: event-driven, no polling.
 */
export async function untilStatus(
  dataDir: string,
  name: string,
  matches: (entry: { status: string; willRestart?: boolean }) => boolean,
): Promise<StatusEntry | RunStatus> {
  const client = await SupervisorClient.connect(RunFiles.of(dataDir, name), name)
  if (!client) throw new Error(`no supervisor answers for ${name}`)
  try {
    return await new Promise((resolve, reject) => {
      client.onClose(() => reject(new Error(`the supervisor of ${name} ended first`)))
      client
        .subscribe(
          0,
          () => {},
          (entry) => matches(entry) && resolve(entry),
        )
        .then((now) => matches(now) && resolve(now), reject)
    })
  } finally {
    client.close()
  }
}

/** The next `count` samples the server's supervisor takes, as it hands them to a follower. */
export async function nextSamples(dataDir: string, name: string, count: number): Promise<ServerSample[]> {
  const client = await SupervisorClient.connect(RunFiles.of(dataDir, name), name)
  if (!client) throw new Error(`no supervisor answers for ${name}`)
  const taken: ServerSample[] = []
  try {
    return await new Promise((resolve, reject) => {
      client.onClose(() => reject(new Error(`the supervisor of ${name} ended first`)))
      client
        .subscribe(
          0,
          () => {},
          () => {},
          (sample) => {
            taken.push(sample)
            if (taken.length === count) resolve(taken)
          },
        )
        .catch(reject)
    })
  } finally {
    client.close()
  }
}

/** Resolves when the server's supervisor ends (its socket closes). */
export async function untilSupervisorEnds(dataDir: string, name: string): Promise<void> {
  const client = await SupervisorClient.connect(RunFiles.of(dataDir, name), name)
  if (!client) return
  await new Promise<void>((resolve) => {
    client.onClose(resolve)
    client
      .subscribe(
        0,
        () => {},
        () => {},
      )
      .catch(() => {})
  })
}

/**
 * Kills the manager, and every game and supervisor, recorded under a data directory
 * (identity-checked) and resolves once they are gone: no test leaves one running. The manager
 * dies with them, and it looks again until nothing recorded runs: a manager replaces a
 * supervisor that dies, maybe before its own SIGKILL lands.
 */
export async function killServers(dataDir: string): Promise<void> {
  for (let round = 0; ; round++) {
    const pids = recordedProcesses(dataDir)
    if (pids.length === 0) return
    if (round === 5) throw new Error(`processes of ${dataDir} keep coming back: ${pids.join(', ')}`)
    await killAndWait(pids)
  }
}

function recordedProcesses(dataDir: string): number[] {
  const pids: number[] = []
  const manager = readManagerInfo(managerFiles(dataDir))
  if (manager && isSameProcess(manager.pid, manager.identity)) pids.push(manager.pid)
  let names: string[] = []
  try {
    names = readdirSync(join(dataDir, 'servers'))
  } catch {}
  const agent = new AgentFiles(dataDir).readRecord()
  if (agent && isSameProcess(agent.pid, agent.identity)) pids.push(agent.pid)
  // And whatever names the directory on its command line: an agent a manager spawned just before
  // it was killed runs before it has written its record.
  for (const pid of processesNaming(dataDir)) if (!pids.includes(pid)) pids.push(pid)
  for (const name of names) {
    const state = runState(dataDir, name)
    for (const ref of [state?.supervisor, state?.game])
      if (ref && isSameProcess(ref.pid, ref.identity)) pids.push(ref.pid)
    // The rest of the game's process group (a wrapper's children), with or without its leader.
    const game = state?.game
    if (game)
      pids.push(
        ...(isSameProcess(game.pid, game.identity)
          ? groupMembers(game.pid)
          : leftovers(game.pid, game.identity)
        ).filter((pid) => !pids.includes(pid)),
      )
  }
  return pids
}

/** A fresh data directory whose game servers are killed when its user is done (see afterItsUser). */
export function gameDataDir(): string {
  const dir = tempDir('sm-game-')
  afterItsUser(() => killServers(dir))
  return dir
}

export function alive(pid: number | undefined): boolean {
  if (!pid) return false
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** Resolves with the first line matching `pattern` appended to `file` from its size now on (follows it, no polling of ours). */
export function nextLine(file: string, pattern: RegExp): Promise<string> {
  const offset = existsSync(file) ? statSync(file).size : 0
  return new Promise((resolve) => {
    const tail: LogTail = new LogTail(file, offset, (line) => {
      if (!pattern.test(line)) return
      tail.stop()
      resolve(line)
    }).start({ ref: false }) // a test that fails before the line comes must not keep mocha alive
  })
}

/** Resolves with a child's exit code (null after a signal), at once for one that has exited. */
export function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode)
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)))
}

/**
 * Adds a fake Bedrock server `s1` to `dataDir`, started once (so that it wrote its world) and
 * stopped: its folder and its world. Commands run in this process (cliIn), or by `runner` (cli:
 * as processes).
 */
export async function stoppedBedrock(dataDir: string, runner: Runner = cliIn): Promise<{ dir: string; world: string }> {
  const dir = fakeBedrockDir()
  for (const args of [
    ['server', 'add', 's1', '--dir', dir],
    ['server', 'start', 's1'],
    ['server', 'stop', 's1'],
  ]) {
    const r = await runner(dataDir, args)
    if (r.code !== 0) throw new Error(`${args.join(' ')} exited ${r.code}:\n${r.stdout}\n${r.stderr}`)
  }
  return { dir, world: join(dir, 'worlds', 'Bedrock level') }
}

/** Resolves once the process `pid` names now has ended (a reused PID is another process). */
export async function untilGone(pid: number): Promise<void> {
  const identity = processIdentity(pid)
  while (isSameProcess(pid, identity)) await setImmediate()
}

/**
 * `server status <name> --json`, parsed; its exit code must be the one documented for the status
 * it printed (0 only for running), else this throws with the command's output. Run in this
 * process (cliIn), or by `runner` (cli: as a process).
 */
export async function statusJson(dataDir: string, name: string, runner: Runner = cliIn): Promise<RunStatus> {
  const r = await runner(dataDir, ['server', 'status', name, '--json'])
  let status: RunStatus
  try {
    status = JSON.parse(r.stdout)
  } catch {
    throw new Error(`server status ${name} --json exited ${r.code}:\n${r.stdout}\n${r.stderr}`)
  }
  expectStatusExit(r.code, status.status, `${r.stdout}\n${r.stderr}`)
  return status
}

/** `server status <name>`, its text; its exit code must be the one documented for the status it printed. */
export async function statusText(dataDir: string, name: string, runner: Runner = cliIn): Promise<string> {
  const r = await runner(dataDir, ['server', 'status', name])
  const status = new RegExp(`^${name}: (\\w+)`).exec(r.stdout)?.[1] as ServerStatus | undefined
  if (!status) throw new Error(`server status ${name} exited ${r.code}:\n${r.stdout}\n${r.stderr}`)
  expectStatusExit(r.code, status, `${r.stdout}\n${r.stderr}`)
  return r.stdout
}

function expectStatusExit(code: number | null, status: ServerStatus, output: string): void {
  const expected = SERVER_STATUS_EXIT[status]?.code
  if (code !== expected)
    throw new Error(`server status printed '${status}' and exited ${code}, not ${expected}:\n${output}`)
}

/**
 * Runs `trigger` while following the running manager's `servers:console` events, and resolves with
 * the first whose line matches (the subscription is in place before `trigger` runs).
 */
export async function managerConsoleLine(
  dataDir: string,
  pattern: RegExp,
  trigger: () => Promise<unknown>,
): Promise<{ serverName: string; line: string }> {
  const client = await BridgeClient.connect(dataDir)
  if (!client) throw new Error('no manager')
  try {
    const line = new Promise<{ serverName: string; line: string }>((resolve) =>
      client.on('servers:console', (payload) => {
        const event = payload as { serverName: string; line: string }
        if (pattern.test(event.line)) resolve(event)
      }),
    )
    await client.request('servers:list', {}, 'cli:test') // answered after the subscription: it is in place
    await trigger()
    return await line
  } finally {
    client.close()
  }
}
