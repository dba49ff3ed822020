import type { ServiceReport } from '../../../kernel'
import { SmError } from '../../../kernel/errors'
import type { Kernel } from '../../../manager'
import { ManagerCommand } from '../manager-command'
import { waitForSignal } from '../wait-for-signal'

export default class Start extends ManagerCommand {
  static override summary = 'Run the manager of the data directory in the foreground until interrupted'
  static override description =
    'Starts every built-in service and the enabled plugins, prints what started and how long each took, and serves every other server-manager command on this data directory (they become its clients). Stops cleanly on Ctrl-C or SIGTERM. One manager per data directory: a second start is refused.'
  static override examples = ['<%= config.bin %> start', 'SM_DATA_DIR=/srv/mc <%= config.bin %> start']

  protected override consoleLevel = 'info' as const

  async run(): Promise<void> {
    await this.parse(Start)
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
    this.log(`server-manager ${this.config.version}, data directory ${manager.config.dataDir}, PID ${process.pid}`)
    for (const line of this.bootReport) this.log(reportLine(line))
    await manager.bus.emit('manager_started', {})
    this.log(`ready in ${(performance.now() - began).toFixed(0)} ms; press Ctrl-C to stop`)
    const reason = await Promise.race([stopSignal, lost])
    if (reason instanceof SmError) this.logToStderr(`Error [${reason.code}]: ${reason.message}`)
    else this.log(`${reason}: stopping`)
    await this.#stop(manager)
    if (reason instanceof SmError) this.exit(reason.exitCode)
  }

  async #stop(manager: Kernel): Promise<void> {
    await manager.bus.emit('manager_stopping', {})
    for (const line of await manager.stop()) this.log(reportLine(line))
    this.log('stopped')
  }
}

function reportLine(report: ServiceReport): string {
  const mark = report.ok ? '✔' : '✘'
  const error = report.error ? `  ${report.error.code}: ${report.error.message}` : ''
  return `  ${mark} ${report.service.padEnd(10)} ${report.ms.toFixed(1).padStart(7)} ms${error}`
}
