import type { ServiceReport } from '../../../kernel'
import { ManagerCommand } from '../manager-command'
import { waitForSignal } from '../wait-for-signal'

export default class Start extends ManagerCommand {
  static override summary = 'Run the manager in the foreground until interrupted'
  static override description =
    'Starts every built-in service, prints what started and how long each took, and stops cleanly on Ctrl-C or SIGTERM.'

  protected override consoleLevel = 'info' as const

  async run(): Promise<void> {
    await this.parse(Start)
    const began = performance.now()
    const manager = await this.manager().catch((error: unknown) => {
      this.log('server-manager failed to start:')
      throw error
    })
    // Listen before announcing readiness: a signal sent on "ready" must find the handler.
    const stopSignal = waitForSignal()
    this.log(`server-manager ${this.config.version}, data directory ${manager.config.dataDir}`)
    for (const line of this.bootReport) this.log(reportLine(line))
    await manager.bus.emit('manager_started', {})
    this.log(`ready in ${(performance.now() - began).toFixed(0)} ms; press Ctrl-C to stop`)
    const signal = await stopSignal
    this.log(`${signal}: stopping`)
    for (const line of await manager.stop()) this.log(reportLine(line))
    this.log('stopped')
  }
}

function reportLine(report: ServiceReport): string {
  const mark = report.ok ? '✔' : '✘'
  const error = report.error ? `  ${report.error.code}: ${report.error.message}` : ''
  return `  ${mark} ${report.service.padEnd(10)} ${report.ms.toFixed(1).padStart(7)} ms${error}`
}
