import { type ChildProcess, type ChildProcessWithoutNullStreams, spawn } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { userInfo } from 'node:os'
import { join } from 'node:path'
import { STAND_IN } from '../../lib/lazy-zod-locales'
import { afterItsUser } from './run-end'

/** The project root (tests run from dist/test/...). */
export const ROOT = join(__dirname, '..', '..', '..')
export const CLI = join(ROOT, 'bin', 'run.js')

export interface RunResult {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs a command to completion (bounded by `timeoutMs`), as a user would from a shell. */
export function run(
  command: string,
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number; input?: string } = {},
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child: ChildProcessWithoutNullStreams = spawn(command, args, {
      cwd: options.cwd ?? ROOT,
      env: { ...process.env, ...options.env },
      stdio: 'pipe',
    })
    child.stdin.end(options.input ?? '')
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk
    })
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk
    })
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 20_000)
    child.on('error', reject)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      resolve({ code, signal, stdout, stderr })
    })
  })
}

/** Runs `server-manager <args>` with the given data directory (and standard input, if given). */
export function cli(
  dataDir: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
  input?: string,
): Promise<RunResult> {
  refuseBareStart(args)
  return run(process.execPath, [CLI, ...args], { env: { SM_DATA_DIR: dataDir, ...env }, input })
}

/**
 * Starts `server-manager <args>` as a long-running process (output piped). One still running
 * when its user is done (the test, or the describe whose before() started it) is killed then,
 * whatever failed: a test stops it itself to see how it ends.
 */
/** Runs `server-manager <args>` and expects exit 0: its stdout (else throws with the command's output). */
export async function cliOk(dataDir: string, args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<string> {
  const r = await cli(dataDir, args, env)
  if (r.code !== 0) throw new Error(`${args.join(' ')} exited ${r.code}:\n${r.stdout}\n${r.stderr}`)
  return r.stdout
}

export function spawnCli(
  dataDir: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
): ChildProcessWithoutNullStreams {
  refuseBareStart(args)
  return spawnUnchecked(dataDir, args, env)
}

function spawnUnchecked(
  dataDir: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
): ChildProcessWithoutNullStreams {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: ROOT,
    env: { ...process.env, SM_DATA_DIR: dataDir, ...env },
  })
  transcriptOf(child.stdout)
  transcriptOf(child.stderr)
  afterItsUser(async () => {
    await stop(child, 'SIGKILL')
  })
  return child
}

/** The web port a test's manager gets: a number (0: any free one), or 'as set' when the test has set web.port itself. */
export type WebPort = number | 'as set'

/**
 * Starts `server-manager start <args>` as a long-running process, as spawnCli() does, on a free web
 * port (see useWebPort).
 */
export async function spawnManager(
  dataDir: string,
  args: readonly string[] = [],
  env: NodeJS.ProcessEnv = {},
  port: WebPort = 0,
): Promise<ChildProcessWithoutNullStreams> {
  await useWebPort(dataDir, env, port)
  return spawnUnchecked(dataDir, ['start', ...args], env)
}

/** Runs `server-manager start <args>` to completion (`--detached`, or one that is refused), on a free web port. */
export async function cliStart(
  dataDir: string,
  args: readonly string[] = [],
  env: NodeJS.ProcessEnv = {},
  port: WebPort = 0,
): Promise<RunResult> {
  await useWebPort(dataDir, env, port)
  return run(process.execPath, [CLI, 'start', ...args], { env: { SM_DATA_DIR: dataDir, ...env } })
}

/**
 * Sets web.port on `dataDir` to `port`, 0 (any free port; the manager prints the one it bound) by
 * default: never the default 11325, which another test run or a developer's own manager on this
 * machine may hold. Only when it differs. Written as `setting set web.port` writes it, through the
 * settings service (a recorded change by the same actor), but without two cold CLI processes per
 * manager: through the running manager when one runs, else a manager in this process that runs
 * no plugins (a `setting set` would run the enabled ones; a test whose plugins count their loads
 * or block is spared that either way). 'as set' leaves it (a test that starts several at once
 * sets it once).
 */
async function useWebPort(dataDir: string, env: NodeJS.ProcessEnv, port: WebPort): Promise<void> {
  if (port === 'as set') return
  await withSettings(dataDir, env, async (request) => {
    const current = (await request('settings:get', { key: 'web.port' })) as { found: boolean; value?: unknown }
    if (current.found && current.value === port) return
    await request('settings:set', { key: 'web.port', value: port, mode: 'merge' })
  })
}

/** Runs `work` with requests to the manager of `dataDir` as the CLI would send them: to the running one, else to one booted here. */
async function withSettings(
  dataDir: string,
  env: NodeJS.ProcessEnv,
  work: (request: (command: string, payload: unknown) => Promise<unknown>) => Promise<void>,
): Promise<void> {
  // Loaded on first use: a test file that starts no manager does not load one.
  const { BridgeClient } = require('../../services/bridge/client') as typeof import('../../services/bridge/client')
  const { PRIVATE_UMASK } = require('../../lib/data-dir') as typeof import('../../lib/data-dir')
  const { createManager, silentLogger } = require('../../manager') as typeof import('../../manager')
  const actor = `cli:${userInfo().username}`
  const client = await BridgeClient.connect(dataDir)
  if (client)
    try {
      return await work((command, payload) => client.request(command, payload, actor))
    } finally {
      client.close()
    }
  // As bin/run.js does before a CLI process creates anything in the data directory.
  const umask = process.umask(PRIVATE_UMASK)
  try {
    const defaults = 'SM_DEFAULT_PLUGINS' in env ? env.SM_DEFAULT_PLUGINS : process.env.SM_DEFAULT_PLUGINS
    const manager = createManager({
      dataDir,
      logger: silentLogger,
      loadPlugins: false,
      oneShot: true,
      defaultPlugins: defaults !== 'off',
    })
    await manager.start()
    try {
      await work((command, payload) => manager.bus.request(command as 'settings:get', payload as never, { actor }))
    } finally {
      await manager.stop()
    }
  } finally {
    process.umask(umask)
  }
}

/** A manager started by cli() or spawnCli() would take the default web port, which may be taken. */
function refuseBareStart(args: readonly string[]): void {
  if (args[0] === 'start')
    throw new Error(
      'start a manager with spawnManager() or cliStart() (test/helpers/run.ts): they choose a free web port',
    )
}

/**
 * Sends `signal` and resolves with the exit code (null when a signal killed it); at once for a
 * child that has already exited (waiting for its 'exit' again would wait forever).
 */
export function stop(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode)
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  child.kill(signal)
  return exited
}

/** What a child has printed on one stream, and how far the waits on it have read. */
interface Transcript {
  text: string
  /** Where the next wait starts: after the line the last one matched. */
  read: number
}

const transcripts = new WeakMap<NodeJS.ReadableStream, Transcript>()

/** The transcript of a stream, kept from the first time it is asked for (from the spawn, for our helpers' children). */
function transcriptOf(source: NodeJS.ReadableStream): Transcript {
  let transcript = transcripts.get(source)
  if (!transcript) {
    const kept: Transcript = { text: '', read: 0 }
    source.on('data', (chunk: Buffer) => {
      kept.text += chunk
    })
    transcripts.set(source, kept)
    transcript = kept
  }
  return transcript
}

/**
 * Resolves with the first line of a running child's stdout (or stderr) that matches `pattern`,
 * or rejects when the child exits first. Waits read on from where the previous one matched, so
 * two lines that arrive in one chunk are both found, in order. No clock of its own by default:
 * how long a start takes on a loaded machine is not what a test checks, and the test's own
 * timeout bounds the wait.
 */
export function waitForLine(
  child: ChildProcess,
  pattern: RegExp,
  options: { timeoutMs?: number; stream?: 'stdout' | 'stderr' } = {},
): Promise<string> {
  const { timeoutMs, stream = 'stdout' } = options
  const source = child[stream]
  if (!source) return Promise.reject(new Error(`the child has no ${stream} pipe`))
  const transcript = transcriptOf(source)
  return new Promise((resolve, reject) => {
    const timer =
      timeoutMs === undefined
        ? undefined
        : setTimeout(
            () =>
              reject(
                new Error(`no ${stream} line matching ${pattern} within ${timeoutMs} ms; got:\n${transcript.text}`),
              ),
            timeoutMs,
          )
    const onExit = (code: number | null) => {
      // What came before the exit is all there is: one last look.
      if (look()) return
      clearTimeout(timer)
      reject(new Error(`exited with ${code} before printing ${pattern}; got:\n${transcript.text}`))
    }
    // Only whole lines: a line split across chunks matches once its newline arrives. Each wait
    // reads from where the waits before it had matched, on its own (waits made together do not
    // skip each other's lines).
    let from = transcript.read
    const look = (): boolean => {
      for (;;) {
        const end = transcript.text.indexOf('\n', from)
        if (end < 0) return false
        const line = transcript.text.slice(from, end)
        from = end + 1
        if (pattern.test(line)) {
          transcript.read = Math.max(transcript.read, from)
          clearTimeout(timer)
          source.off('data', onData)
          child.off('exit', onExit)
          resolve(line)
          return true
        }
      }
    }
    // After the transcript's own listener (added first), so the chunk is in it.
    const onData = () => void look()
    if (look()) return
    source.on('data', onData)
    child.once('exit', onExit)
  })
}

/**
 * Runs `server-manager <args>` on `dataDir` and tells which modules it had loaded when it exited
 * (its require cache, written by a preloaded tracer into `dataDir`), beside what it printed.
 */
export async function loadedModules(
  dataDir: string,
  args: readonly string[],
): Promise<RunResult & { readonly loaded: string[] }> {
  const trace = join(dataDir, 'modules.txt')
  const tracer = join(dataDir, 'tracer.js')
  writeFileSync(
    tracer,
    // Files read and run: not the stand-in for zod's translations (lib/lazy-zod-locales.ts).
    "process.on('exit', () => require('node:fs').writeFileSync(process.env.TRACE, Object.values(require.cache).filter((m) => !m.id.endsWith(process.env.STAND_IN)).map((m) => m.filename).join('\\n')))\n",
  )
  const result = await run(process.execPath, ['--require', tracer, CLI, ...args], {
    env: { SM_DATA_DIR: dataDir, TRACE: trace, STAND_IN },
  })
  return { ...result, loaded: readFileSync(trace, 'utf8').split('\n') }
}
