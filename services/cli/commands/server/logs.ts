import { Args, Flags } from '@oclif/core'
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
    // Printed up to a size taken once, then followed from exactly there: no line twice, none lost.
    const size = fileSize(file)
    for (const line of lastConsoleLines(file, flags.lines, size)) this.log(line)
    const tail = new LogTail(file, size, (line) => this.log(cleanConsoleLine(line))).start()
    await waitForSignal()
    tail.stop()
  }
}
