import type { LogFields, Logger } from '../../kernel'
import { setOwnProperty } from '../../lib/own-property'
import { withoutSecrets, withoutUrlSecrets } from '../../lib/secrets'
import { FileSink } from './file-sink'
import { onOutputTrouble } from './guarded-output'

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent'

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 }

export function isLogLevel(value: unknown): value is LogLevel {
  return typeof value === 'string' && Object.hasOwn(RANK, value)
}

export interface LoggerOptions {
  /** JSON-lines log file; none when omitted. */
  readonly file?: string
  readonly fileLevel?: LogLevel
  readonly consoleLevel?: LogLevel
  /** Where human-readable lines go (default: stderr, so command output stays clean). */
  readonly console?: { write(text: string): unknown }
}

export interface RootLogger extends Logger {
  /** Closes the log file. */
  close(): void
}

/**
 * The structured logger: human-readable lines on the console, JSON lines in the data
 * directory's log file, one child per service or plugin. Secrets are redacted (lib/secrets.ts).
 */
export function createLogger(options: LoggerOptions = {}): RootLogger {
  const fileRank = RANK[options.fileLevel ?? 'info']
  const consoleRank = RANK[options.consoleLevel ?? 'info']
  const out = options.console ?? process.stderr
  const toConsole = (level: Exclude<LogLevel, 'silent'>, name: string, message: string, fields?: LogFields) => {
    // The console is guarded (guarded-output.ts) in a CLI process; anything else given must not throw either.
    try {
      out.write(`${clock(new Date())} ${level.toUpperCase().padEnd(5)} [${name}] ${message}${format(fields)}\n`)
    } catch {}
  }
  // A log line never ends the process: a file that cannot be written drops its lines, says so on
  // the console once, and resumes (saying how many were dropped) as soon as it can write again.
  const sink = options.file
    ? new FileSink({
        path: options.file,
        onDropping: (reason) =>
          toConsole('warn', 'log', `the log file cannot be written (${reason}); its lines are dropped until it can`),
        onResumed: (dropped, reason) => {
          const message = `the log file is written again; ${dropped} lines were dropped (${reason})`
          sink?.write(JSON.stringify(record(new Date(), 'warn', 'log', message, undefined)))
          toConsole('info', 'log', message)
        },
      })
    : undefined
  // The console's own trouble goes into the file (it cannot go where it failed).
  const stopHearing = sink
    ? onOutputTrouble((trouble) =>
        sink.write(
          JSON.stringify(
            record(
              new Date(),
              'warn',
              'log',
              trouble.kind === 'dropping'
                ? `${trouble.stream} cannot be written (${trouble.reason}); its lines are dropped until it can`
                : `${trouble.stream} is written again; ${trouble.dropped} writes were dropped (${trouble.reason})`,
              undefined,
            ),
          ),
        ),
      )
    : () => {}

  const write = (level: Exclude<LogLevel, 'silent'>, name: string, text: string, fields?: LogFields): void => {
    const rank = RANK[level]
    if (rank < fileRank && rank < consoleRank) return
    const time = new Date()
    // The one redaction rule (lib/secrets.ts): secret fields and settings, URL passwords.
    const message = withoutUrlSecrets(text)
    const safe = fields ? (withoutSecrets(fields) as LogFields) : undefined
    if (sink && rank >= fileRank) sink.write(JSON.stringify(record(time, level, name, message, safe)))
    if (rank >= consoleRank) toConsole(level, name, message, safe)
  }

  const make = (name: string): Logger => ({
    debug: (message, fields) => write('debug', name, message, fields),
    info: (message, fields) => write('info', name, message, fields),
    warn: (message, fields) => write('warn', name, message, fields),
    error: (message, fields) => write('error', name, message, fields),
    child: (child) => make(`${name}:${child}`),
  })

  const root = make('manager')
  return {
    ...root,
    child: (name) => make(name),
    close: () => {
      stopHearing()
      sink?.close()
    },
  }
}

const OWN_FIELDS = new Set(['time', 'level', 'name', 'message', 'fields'])

/**
 * One JSON log record. Its own fields always win: a logged field named like one of them
 * (`message`, `level`, ...) is kept under `fields` instead of overwriting it.
 */
function record(time: Date, level: string, name: string, message: string, fields: LogFields | undefined) {
  const own = { time: time.toISOString(), level, name, message }
  if (!fields) return own
  const extra: LogFields = {}
  const clashing: LogFields = {}
  for (const [key, value] of Object.entries(fields)) setOwnProperty(OWN_FIELDS.has(key) ? clashing : extra, key, value)
  return Object.keys(clashing).length ? { ...own, ...extra, fields: clashing } : { ...own, ...extra }
}

function clock(time: Date): string {
  return time.toISOString().slice(11, 23)
}

function format(fields: LogFields | undefined): string {
  if (!fields) return ''
  const parts = Object.entries(fields).map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
  return parts.length ? ` ${parts.join(' ')}` : ''
}
