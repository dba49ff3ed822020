import { spawn } from 'node:child_process'
import { closeSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import * as Flags from '@oclif/core/flags'
import type { Kernel, ServiceReport } from '../../../kernel'
import { errorLine, SmError, toSmError, type WireError } from '../../../kernel/errors'
import { sealedStdio } from '../../../lib/process-identity'
import { ManagerCommand } from '../manager-command'
import { waitForSignal } from '../wait-for-signal'

/**
 * How long `start --detached` waits on a background manager that says nothing: while it boots it
 * sends a beat every BEAT_MS (its thread is alive; its plugins may take long, bounded by their
 * own limits), so only a manager that hangs or never starts is given up on.
 */
const DETACHED_WAIT_MS = 60_000
const BEAT_MS = 5000

export default class Start extends ManagerCommand {
  static override summary = 'Run the manager of the data directory: the services, the plugins and the web server'
  static override description =
    'Starts every built-in service, the enabled plugins and the web UI and HTTP API (web.host:web.port, default 127.0.0.1:11325; the first visit leads to setup), prints what started and how long each took, and serves every other server-manager command on this data directory (they become its clients). In the foreground it stops cleanly on Ctrl-C or SIGTERM, letting web requests in flight finish. With --detached it runs in the background and returns once it answers. One manager per data directory: a second start is refused.'
  static override examples = [
    '<%= config.bin %> start',
    '<%= config.bin %> start --detached',
    'SM_DATA_DIR=/srv/mc <%= config.bin %> start',
  ]
  static override flags = {
    detached: Flags.boolean({
      description: 'run in the background (output in <data dir>/logs/manager.out) and return once it answers',
    }),
    nats: Flags.string({
      description:
        'join this NATS broker (nats://host:4222) and serve the bus there too, for host agents on other machines; overrides the setting nats.url',
      helpValue: '<url>',
    }),
  }

  protected override consoleLevel = 'info' as const

  async run(): Promise<void> {
    const { flags } = await this.parse(Start)
    if (flags.detached) return this.#detached(flags.nats)
    const began = performance.now()
    // Started by `start --detached`: it waits on this channel for our own word, ready or not.
    const parent = readyChannel()
    const booting = this.boot({ daemon: true, nats: flags.nats }).catch((error: unknown) => {
      this.logToStderr('server-manager failed to start:')
      parent?.({ error: toSmError(error).toWire() })
      throw error
    })
    // Listening from the start: the web server and the bridge answer once every service is up,
    // before this line would be reached, and a signal sent then must find the handler.
    const stopSignal = waitForSignal(
      booting.then(
        () => new Promise<never>(() => {}),
        () => undefined,
      ),
    )
    const manager = await booting
    const lost = new Promise<SmError>((resolve) =>
      manager.bus.on(
        'events:database_lost',
        ({ path, reason }) => resolve(new SmError('SM_ERR_DB_REPLACED', { path, reason })),
        { owner: 'cli:start' },
      ),
    )
    const asked = new Promise<string>((resolve) =>
      manager.bus.on('manager:stop_requested', ({ by }) => resolve(`asked to stop by ${by}`), { owner: 'cli:start' }),
    )
    this.log(`server-manager ${this.config.version}, data directory ${manager.config.dataDir}, PID ${process.pid}`)
    for (const line of this.bootReport) this.log(reportLine(line))
    let url: string | undefined
    if (manager.bus.hasHandler('web:status')) {
      url = (await manager.bus.request('web:status', {})).url
      this.log(url ? `web UI and API on ${url} (API docs: ${url}/docs)` : 'web UI off (web.enabled is false)')
    }
    const nats = await manager.bus.request('nats:status', {})
    const natsLine = !nats.configured
      ? undefined
      : nats.connected
        ? `NATS: on the broker at ${nats.url} (subjects ${nats.prefix}.>)`
        : `NATS: not on the broker at ${nats.url} yet (${nats.reason}); trying again in the background`
    if (natsLine) this.log(natsLine)
    this.log(`ready in ${(performance.now() - began).toFixed(0)} ms; press Ctrl-C to stop`)
    parent?.({ ready: { pid: process.pid, url, nats: natsLine } })
    const reason = await Promise.race([stopSignal, lost, asked])
    if (reason instanceof SmError) this.logToStderr(errorLine(reason))
    else this.log(`${reason}: stopping`)
    await this.#stop(manager)
    if (reason instanceof SmError) this.exit(reason.exitCode)
  }

  async #stop(manager: Kernel): Promise<void> {
    for (const line of await manager.stop()) this.log(reportLine(line))
    this.log('stopped')
  }

  /**
   * Starts `server-manager start` in its own session and waits for its own word on a pipe: ready
   * (it holds the data directory's manager lock and serves), or the coded error it failed with.
   * So of several at once, only the one whose child holds the lock reports success; each other
   * one shows its own child's error (SM_ERR_MANAGER_RUNNING) and exits non-zero.
   */
  async #detached(nats: string | undefined): Promise<void> {
    const dataDir = this.dataDir
    const running = await this.runningManager()
    if (running) {
      const status = await running.request('manager:status', {}, this.actor).finally(() => running.close())
      throw new SmError('SM_ERR_MANAGER_RUNNING', { dataDir, pid: String((status as { pid: number }).pid) })
    }
    mkdirSync(join(dataDir, 'logs'), { recursive: true })
    const logFile = join(dataDir, 'logs', 'manager.out')
    const out = openSync(logFile, 'a')
    const nullFd = openSync('/dev/null', 'r+')
    const child = spawn(
      process.execPath,
      [...process.execArgv, process.argv[1] as string, 'start', ...(nats ? ['--nats', nats] : [])],
      {
        detached: true,
        env: { ...process.env, SM_DATA_DIR: dataDir, [READY_FD_ENV]: '3' },
        // No descriptor of ours reaches it (a shell waiting for our output is not held up by the
        // manager), except the pipe it reports on, which it closes once it has.
        stdio: sealedStdio([nullFd, out, out, 'pipe'], nullFd),
      },
    )
    closeSync(out)
    closeSync(nullFd)
    const channel = child.stdio[3] as Readable
    const word = await new Promise<{ said: string; code: number | null | undefined }>((resolve) => {
      let said = ''
      let code: number | null | undefined
      let timedOut = false
      const timer = setTimeout(() => {
        timedOut = true
        channel.destroy()
      }, DETACHED_WAIT_MS)
      child.once('exit', (exitCode) => {
        code = exitCode
      })
      const done = (word: { said: string; code: number | null | undefined }) => {
        clearTimeout(timer)
        channel.destroy()
        resolve(word)
      }
      // Its word is one line: taken as soon as it is complete (a process the child started
      // might still hold the pipe open).
      channel.on('data', (chunk: Buffer) => {
        // Beats ('.', only ever before the word) say it is still booting: the wait starts again.
        said = `${said}${chunk}`.replace(/^\.+/, '')
        timer.refresh()
        if (said.includes('\n')) done({ said, code })
      })
      // Closed without a word: it ended (its exit code is waited for), or the wait timed out.
      channel.once('close', () => {
        if (said.includes('\n')) return
        if (code !== undefined || timedOut) done({ said, code })
        else child.once('exit', (exitCode) => done({ said, code: exitCode }))
      })
    })
    child.unref()
    const message = parseWord(word.said)
    if (message?.ready) {
      this.log(`server-manager runs in the background (PID ${message.ready.pid}); output in ${logFile}`)
      if (message.ready.url) this.log(`web UI and API on ${message.ready.url}`)
      if (message.ready.nats) this.log(message.ready.nats)
      this.log(`stop it with: ${this.config.bin} web stop`)
      return
    }
    // Its own error, as it raised it (not another child's lines from the shared output file).
    if (message?.error) throw SmError.fromWire(message.error)
    throw new SmError('SM_ERR_MANAGER_START_FAILED', {
      reason:
        word.code === undefined
          ? `it said nothing for ${DETACHED_WAIT_MS / 1000} s while starting`
          : `it exited with code ${word.code} before it was ready:\n${tail(logFile)}`,
      log: logFile,
    })
  }
}

/** The environment variable that names the descriptor `start --detached` waits on. */
const READY_FD_ENV = 'SM_READY_FD'

type Word = { ready?: { pid: number; url?: string; nats?: string }; error?: WireError }

/** In a manager started by `start --detached`: how to send it our word (once), if it waits for one. */
function readyChannel(): ((word: Word) => void) | undefined {
  const fd = Number(process.env[READY_FD_ENV])
  // Not passed on to the processes this one starts (supervisors, games).
  delete process.env[READY_FD_ENV]
  if (!Number.isInteger(fd) || fd < 3) return undefined
  let said = false
  // Booting: a beat now and then, so the parent waits as long as this process is alive and well.
  const beat = setInterval(() => {
    try {
      writeSync(fd, '.')
    } catch {
      clearInterval(beat) // the parent is gone
    }
  }, BEAT_MS)
  beat.unref()
  return (word) => {
    if (said) return
    said = true
    clearInterval(beat)
    try {
      writeSync(fd, `${JSON.stringify(word)}\n`)
    } catch {
      // The parent is gone: nobody waits for the word.
    }
    try {
      closeSync(fd)
    } catch {}
  }
}

function parseWord(text: string): Word | undefined {
  try {
    return JSON.parse(text.trim()) as Word
  } catch {
    return undefined
  }
}

function tail(file: string): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-10).join('\n')
  } catch {
    return ''
  }
}

export function reportLine(report: ServiceReport): string {
  const mark = report.ok ? '✔' : '✘'
  const error = report.error ? `  ${report.error.code}: ${report.error.message}` : ''
  return `  ${mark} ${report.service.padEnd(10)} ${report.ms.toFixed(1).padStart(7)} ms${error}`
}
