import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { cleanConsoleLine } from '../../../../lib/console-text'
import { fileSize, LogTail, lastConsoleLines } from '../../../../lib/log-tail'
import { ManagerCommand } from '../../manager-command'
import { waitForSignal } from '../../wait-for-signal'

export default class ServerLogs extends ManagerCommand {
  protected override loadsPlugins = false
  static override summary = "Print a server's console log, and with --follow keep printing it"
  static override description =
    'Lines are printed as a terminal would show them, as plain text: colours, other escape sequences and a leading console prompt (`> `) are taken out. The console log, with the raw bytes, is <data dir>/servers/<name>/console.log, rotated past servers.log_max_bytes (retention.logs older files kept as console.log.1, .2, ...). --follow works with or without a manager or a supervisor, and across rotations; Ctrl+C ends it.'
  static override examples = [
    '<%= config.bin %> server logs survival',
    '<%= config.bin %> server logs survival --lines 200',
    '<%= config.bin %> server logs survival --follow',
  ]
  static override args = { name: Args.string({ description: 'the server name', required: true }) }
  static override flags = {
    lines: Flags.integer({ char: 'n', description: 'how many of the last lines to print', default: 50, min: 0 }),
    follow: Flags.boolean({ char: 'f', description: 'keep printing new lines as the server writes them' }),
    json: Flags.boolean({ description: 'print { file, lines } as JSON (not with --follow)', exclusive: ['follow'] }),
  }

  async run(): Promise<void> {
    const { args, flags } = await this.parse(ServerLogs)
    const { file, lines } = await this.request('servers:logs', {
      name: args.name,
      lines: flags.follow ? 0 : flags.lines,
    })
    if (flags.json) return this.printJson({ file, lines })
    if (!flags.follow) {
      for (const line of lines) this.log(line)
      return
    }
    // Its console log is on another machine: followed as its host relays the lines.
    const { host } = await this.request('servers:info', { name: args.name })
    if (host !== undefined) return this.#followOnHost(args.name, host, flags.lines)
    // Printed up to a size taken once, then followed from exactly there: no line twice, none lost.
    const size = fileSize(file)
    for (const line of lastConsoleLines(file, flags.lines, size)) this.log(line)
    const tail = new LogTail(file, size, (line) => this.log(cleanConsoleLine(line))).start()
    await waitForSignal()
    tail.stop()
  }

  /**
   * The last lines, then each new one as the server's host relays it to the manager: lines that
   * came while the last ones were read are printed once (those the last ones already hold are not).
   * While the host is offline nothing comes; that is said, on stderr.
   */
  async #followOnHost(name: string, host: string, last: number): Promise<void> {
    const waiting: string[] = []
    let live = false
    const lines = await this.subscribe('servers:console', ({ serverName, line }) => {
      if (serverName !== name) return
      if (live) this.log(cleanConsoleLine(line))
      else waiting.push(cleanConsoleLine(line))
    })
    const gone = await this.subscribe('nats:host_offline', (p) => {
      if (p.name === host)
        process.stderr.write(
          `Host '${host}' is offline (${p.reason}): its lines show here again once it is back; meanwhile they are in its console log there.\n`,
        )
    })
    try {
      const tail = (await this.request('servers:logs', { name, lines: last })).lines
      for (const line of tail) this.log(line)
      for (const line of waiting.slice(overlap(tail, waiting))) this.log(line)
      live = true
      await waitForSignal()
    } finally {
      lines.dispose()
      gone.dispose()
    }
  }
}

/** How many of `next`'s first lines are `tail`'s last ones (printed already). */
function overlap(tail: readonly string[], next: readonly string[]): number {
  for (let k = Math.min(tail.length, next.length); k > 0; k--)
    if (next.slice(0, k).every((line, i) => line === tail[tail.length - k + i])) return k
  return 0
}
