import { Readable } from 'node:stream'
import type { Kernel } from '../../kernel'
import { createManager } from '../../manager'
import { ROOT, type RunResult } from './run'
import { afterItsUser } from './run-end'

// What bin/run.js loads before a command: the CLI's composition root (its wiring and the error
// catalogues its commands raise), then oclif.
import '../../cli'

/**
 * `server-manager <args>` run in this process through oclif's own `run`, as bin/run.js runs it
 * (the same config load, plugin commands, error handling and exit code): against the manager
 * that runs on `dataDir`, or, when none runs, against a manager the command boots in this
 * process and stops when it is done, as a cold process does in its own (the CLI's session,
 * services/cli/session.ts; in-process.test.ts holds both to the real process). Its stdout and
 * stderr are what it wrote; `code` is the exit code the process would have had. One at a time:
 * the environment (SM_DATA_DIR), the output streams and the exit code are the process's, so
 * commands are queued (two commands that wait on each other need processes).
 *
 * Where the process is the point, a test runs one (cli()): what a one-shot process does when
 * plugin code blocks its loop, exits or leaves timers, signals, detaching, a terminal.
 */
export function cliIn(
  dataDir: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
  input?: string,
): Promise<RunResult> {
  const longRunning =
    args[0] === 'start' ||
    args[0] === 'menu' ||
    (args[0] === 'agent' && args[1] === 'start') ||
    (args[0] === 'server' && args[1] === 'console') ||
    args.includes('--follow') ||
    args.includes('-f')
  if (longRunning)
    throw new Error(
      `'${args.join(' ')}' runs until stopped or takes the terminal: run it as a process (test/helpers/run.ts)`,
    )
  const turn = queue.then(() => runInProcess(dataDir, args, env, input))
  queue = turn.then(
    () => undefined,
    () => undefined,
  )
  return turn
}

/** cliIn() expecting exit 0: its stdout (else throws with the command's output), as cliOk() is for a process. */
export async function cliInOk(
  dataDir: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
  input?: string,
): Promise<string> {
  const r = await cliIn(dataDir, args, env, input)
  if (r.code !== 0) throw new Error(`${args.join(' ')} exited ${r.code}:\n${r.stdout}\n${r.stderr}`)
  return r.stdout
}

let queue: Promise<unknown> = Promise.resolve()

async function runInProcess(
  dataDir: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  input: string | undefined,
): Promise<RunResult> {
  // What bin/run.js takes of oclif.
  const oclif = require('../../services/cli/oclif-run') as typeof import('../../services/cli/oclif-run')
  // Its exit is a seam made to be replaced in tests; the replacement returns.
  const Exit: { exit(code?: number): void } = oclif.Exit
  const restore = borrowProcess({ SM_DATA_DIR: dataDir, ...env }, input)
  let stdout = ''
  let stderr = ''
  restore.capture(
    (text) => {
      stdout += text
    },
    (text) => {
      stderr += text
    },
  )
  let code: number | undefined
  const exit = Exit.exit
  // oclif's handle() ends the process through this seam, made to be replaced in tests.
  Exit.exit = (c = 0) => {
    code ??= c
  }
  try {
    // bin/run.js, step by step, but the process is not ended.
    const argv = [...args]
    try {
      const config = await oclif.Config.load({ root: ROOT })
      const listing =
        argv.length === 0 || ['help', 'menu'].includes(argv[0] ?? '') || argv.some((a) => a === '--help' || a === '-h')
      await (
        require('../../services/cli/plugin-commands') as typeof import('../../services/cli/plugin-commands')
      ).attachPluginCommands(config, { warn: listing })
      await oclif.run(argv, config)
      await oclif.flush()
    } catch (error) {
      const e = error as { code?: unknown; exitCode?: unknown }
      if (typeof e?.code === 'string' && e.code.startsWith('SM_ERR_') && typeof e.exitCode === 'number') {
        const { errorLine } = require('../../kernel/errors') as typeof import('../../kernel/errors')
        process.stderr.write(`${errorLine(error as never)}\n`)
        process.exitCode = e.exitCode
      } else await oclif.handle(error as Error)
    }
    return { code: code ?? Number(process.exitCode ?? 0), signal: null, stdout, stderr }
  } finally {
    Exit.exit = exit
    restore.done()
  }
}

/**
 * Lends this process to one command as bin/run.js would have it: its environment, umask, an
 * exit code of its own, piped (not terminal) output captured, and a standard input that holds
 * `input` (or nothing, as a spawned process's ended stdin); all given back by done().
 */
function borrowProcess(env: NodeJS.ProcessEnv, input: string | undefined) {
  const savedEnv: NodeJS.ProcessEnv = {}
  for (const [key, value] of Object.entries(env)) {
    savedEnv[key] = process.env[key]
    if (value === undefined) delete process.env[key]
    else process.env[key] = value
  }
  const umask = process.umask(0o077)
  const exitCode = process.exitCode
  process.exitCode = undefined
  const stdin = Object.getOwnPropertyDescriptor(process, 'stdin')
  const fakeStdin = Object.assign(Readable.from(input === undefined ? [] : [Buffer.from(input)]), {
    isTTY: undefined,
    fd: -1,
  })
  Object.defineProperty(process, 'stdin', { configurable: true, get: () => fakeStdin })
  const streams = [process.stdout, process.stderr] as const
  const saved = streams.map((s) => ({
    write: s.write,
    tty: Object.getOwnPropertyDescriptor(s, 'isTTY'),
    drain: s.listeners('drain'),
  }))
  for (const s of streams) Object.defineProperty(s, 'isTTY', { configurable: true, value: undefined })
  return {
    capture(out: (text: string) => void, err: (text: string) => void) {
      streams.forEach((s, i) => {
        const sink = i === 0 ? out : err
        s.write = ((chunk: string | Uint8Array, encoding?: unknown, cb?: unknown) => {
          sink(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString())
          const done = typeof encoding === 'function' ? encoding : cb
          if (typeof done === 'function') process.nextTick(done as () => void)
          return true
        }) as typeof s.write
      })
    },
    done() {
      streams.forEach((s, i) => {
        const { write, tty, drain } = saved[i] as (typeof saved)[number]
        s.write = write
        // oclif's flush() waits for a 'drain' that a write which returned true never brings: its
        // listener would stay on this process's stream after every command.
        for (const listener of s.listeners('drain')) if (!drain.includes(listener)) s.off('drain', listener as never)
        if (tty) Object.defineProperty(s, 'isTTY', tty)
        else delete (s as { isTTY?: boolean }).isTTY
      })
      if (stdin) Object.defineProperty(process, 'stdin', stdin)
      process.exitCode = exitCode
      process.umask(umask)
      for (const [key, value] of Object.entries(savedEnv)) {
        if (value === undefined) delete process.env[key]
        else process.env[key] = value
      }
    },
  }
}

/**
 * A real manager on `dataDir`, as `server-manager start` boots it (the daemon: its bridge socket
 * for CLI clients, its plugins; the default ones as SM_DEFAULT_PLUGINS says, unless
 * `defaultPlugins` is given), in this process and without the web server unless asked; stopped
 * when its user (the test, or the describe whose before() started it) is done. CLI commands run
 * against it by cliIn(), or as client processes by cli().
 */
export async function managerOn(
  dataDir: string,
  options: { web?: boolean; defaultPlugins?: boolean } = {},
): Promise<Kernel> {
  const kernel = createManager({
    dataDir,
    daemon: true,
    web: options.web ? { host: '127.0.0.1', port: 0 } : false,
    consoleLevel: 'silent',
    ...(options.defaultPlugins === undefined ? {} : { defaultPlugins: options.defaultPlugins }),
  })
  afterItsUser(async () => {
    await kernel.stop()
  })
  await kernel.start()
  return kernel
}
