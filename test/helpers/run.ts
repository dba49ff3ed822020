import { type ChildProcess, type ChildProcessWithoutNullStreams, spawn } from 'node:child_process'
import { join } from 'node:path'
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
  return run(process.execPath, [CLI, ...args], { env: { SM_DATA_DIR: dataDir, ...env }, input })
}

/**
 * Starts `server-manager <args>` as a long-running process (output piped). One still running
 * when its user is done (the test, or the describe whose before() started it) is killed then,
 * whatever failed: a test stops it itself to see how it ends.
 */
export function spawnCli(
  dataDir: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
): ChildProcessWithoutNullStreams {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: ROOT,
    env: { ...process.env, SM_DATA_DIR: dataDir, ...env },
  })
  afterItsUser(async () => {
    await stop(child, 'SIGKILL')
  })
  return child
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

/** Resolves with the first line of a running child's stdout (or stderr) that matches `pattern`. */
export function waitForLine(
  child: ChildProcess,
  pattern: RegExp,
  options: { timeoutMs?: number; stream?: 'stdout' | 'stderr' } = {},
): Promise<string> {
  const { timeoutMs = 15_000, stream = 'stdout' } = options
  const source = child[stream]
  return new Promise((resolve, reject) => {
    let buffer = ''
    const timer = setTimeout(
      () => reject(new Error(`no ${stream} line matching ${pattern} within ${timeoutMs} ms; got:\n${buffer}`)),
      timeoutMs,
    )
    const onExit = (code: number | null) => {
      clearTimeout(timer)
      reject(new Error(`exited with ${code} before printing ${pattern}; got:\n${buffer}`))
    }
    const onData = (chunk: Buffer) => {
      buffer += chunk
      // Only whole lines: a line split across chunks matches once its newline arrives.
      const line = buffer
        .slice(0, buffer.lastIndexOf('\n'))
        .split('\n')
        .find((l) => pattern.test(l))
      if (line === undefined) return
      clearTimeout(timer)
      source?.off('data', onData)
      child.off('exit', onExit)
      resolve(line)
    }
    source?.on('data', onData)
    child.once('exit', onExit)
  })
}
