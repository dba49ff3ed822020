import { spawn } from 'node:child_process'
import { closeSync, mkdirSync, openSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { Flags } from '@oclif/core'
import type { ServiceReport } from '../../../kernel'
import { errorLine, SmError } from '../../../kernel/errors'
import { sealedStdio } from '../../../kernel/process-identity'
import type { Kernel } from '../../../manager'
import { BridgeClient } from '../../bridge/client'
import { ManagerCommand } from '../manager-command'
import { waitForSignal } from '../wait-for-signal'

/** How long `start --detached` waits for the background manager to answer. */
const DETACHED_WAIT_MS = 60_000

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
  }

  protected override consoleLevel = 'info' as const

  async run(): Promise<void> {
    const { flags } = await this.parse(Start)
    if (flags.detached) return this.#detached()
    const began = performance.now()
    const manager = await this.boot({ daemon: true }).catch((error: unknown) => {
      this.logToStderr('server-manager failed to start:')
      throw error
    })
    // Listen before announcing readiness: a signal sent on "ready" must find the handler.
    const stopSignal = waitForSignal()
    const lost = new Promise<SmError>((resolve) =>
      manager.bus.on(
        'events:database_lost',
        ({ path, reason }) => resolve(new SmError('SM_ERR_DB_REPLACED', { path, reason })),
        { owner: 'cli:start' },
      ),
    )
    const asked = new Promise<string>((resolve) =>
      manager.bus.on('manager_stop_requested', ({ by }) => resolve(`asked to stop by ${by}`), { owner: 'cli:start' }),
    )
    this.log(`server-manager ${this.config.version}, data directory ${manager.config.dataDir}, PID ${process.pid}`)
    for (const line of this.bootReport) this.log(reportLine(line))
    if (manager.bus.hasHandler('web:status')) {
      const web = await manager.bus.request('web:status', {})
      this.log(
        web.url ? `web UI and API on ${web.url} (API docs: ${web.url}/docs)` : 'web UI off (web.enabled is false)',
      )
    }
    await manager.bus.emit('manager_started', {})
    this.log(`ready in ${(performance.now() - began).toFixed(0)} ms; press Ctrl-C to stop`)
    const reason = await Promise.race([stopSignal, lost, asked])
    if (reason instanceof SmError) this.logToStderr(errorLine(reason))
    else this.log(`${reason}: stopping`)
    await this.#stop(manager)
    if (reason instanceof SmError) this.exit(reason.exitCode)
  }

  async #stop(manager: Kernel): Promise<void> {
    await manager.bus.emit('manager_stopping', {})
    for (const line of await manager.stop()) this.log(reportLine(line))
    this.log('stopped')
  }

  /** Starts `server-manager start` in its own session and waits until its bridge answers. */
  async #detached(): Promise<void> {
    const dataDir = this.dataDir
    const running = await BridgeClient.connect(dataDir)
    if (running) {
      const status = await running.request('manager:status', {}, this.actor).finally(() => running.close())
      throw new SmError('SM_ERR_MANAGER_RUNNING', { dataDir, pid: String((status as { pid: number }).pid) })
    }
    mkdirSync(join(dataDir, 'logs'), { recursive: true })
    const logFile = join(dataDir, 'logs', 'manager.out')
    const out = openSync(logFile, 'a')
    const nullFd = openSync('/dev/null', 'r+')
    const child = spawn(process.execPath, [...process.execArgv, process.argv[1] as string, 'start'], {
      detached: true,
      env: { ...process.env, SM_DATA_DIR: dataDir },
      // No descriptor of ours reaches it: a shell waiting for our output is not held up by the manager.
      stdio: sealedStdio([nullFd, out, out], nullFd),
    })
    closeSync(out)
    closeSync(nullFd)
    let exited: number | null | undefined
    child.once('exit', (code) => {
      exited = code
    })
    child.unref()
    const deadline = Date.now() + DETACHED_WAIT_MS
    while (Date.now() < deadline) {
      if (exited !== undefined)
        throw new SmError('SM_ERR_MANAGER_START_FAILED', {
          reason: `it exited with code ${exited}:\n${tail(logFile)}`,
          log: logFile,
        })
      const client = await BridgeClient.connect(dataDir).catch(() => undefined)
      if (client) {
        try {
          const web = (await client.request('web:status', {}, this.actor).catch(() => undefined)) as
            | { url?: string }
            | undefined
          this.log(`server-manager runs in the background (PID ${child.pid}); output in ${logFile}`)
          if (web?.url) this.log(`web UI and API on ${web.url}`)
          this.log(`stop it with: ${this.config.bin} web stop`)
          return
        } finally {
          client.close()
        }
      }
      await sleep(100)
    }
    throw new SmError('SM_ERR_MANAGER_START_FAILED', {
      reason: `it did not answer within ${DETACHED_WAIT_MS / 1000} s`,
      log: logFile,
    })
  }
}

function tail(file: string): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-10).join('\n')
  } catch {
    return ''
  }
}

function reportLine(report: ServiceReport): string {
  const mark = report.ok ? '✔' : '✘'
  const error = report.error ? `  ${report.error.code}: ${report.error.message}` : ''
  return `  ${mark} ${report.service.padEnd(10)} ${report.ms.toFixed(1).padStart(7)} ms${error}`
}
