import pino, { type StreamEntry } from 'pino'
import type { LogFields, Logger } from '../../kernel'
import { setOwnProperty } from '../../lib/own-property'
import { withoutSecrets, withoutUrlSecrets } from '../../lib/secrets'
import { consoleLines } from './console-lines'
import { FileSink } from './file-sink'
import { onOutputTrouble } from './guarded-output'

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent'

const LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error', 'silent']

export function isLogLevel(value: unknown): value is LogLevel {
  return LEVELS.some((level) => level === value)
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
 * The structured logger: pino, writing JSON lines to the data directory's log file (through
 * FileSink, which survives a full disk) and human-readable lines to the console, one child per
 * service or plugin. Secrets are redacted by lib/secrets.ts's rule, in pino's log formatter.
 */
export function createLogger(options: LoggerOptions = {}): RootLogger {
  const fileLevel = options.fileLevel ?? 'info'
  const consoleLevel = options.consoleLevel ?? 'info'
  const toConsole = consoleLines(options.console ?? process.stderr)
  // A log line never ends the process: a file that cannot be written drops its lines, says so on
  // the console once, and resumes (saying how many were dropped) as soon as it can write again.
  const sink = options.file
    ? new FileSink({
        path: options.file,
        onDropping: (reason) =>
          toConsole.say(
            'warn',
            'log',
            `the log file cannot be written (${reason}); its lines are dropped until it can`,
          ),
        onResumed: (dropped, reason) => {
          const message = `the log file is written again; ${dropped} lines were dropped (${reason})`
          notes?.warn(message)
          toConsole.say('info', 'log', message)
        },
      })
    : undefined
  // What the log itself says goes to the file whatever its level, from a logger of its own
  // (a note is written while the main one is in the middle of a line).
  const notes = sink ? pino({ ...PINO_OPTIONS, level: 'debug' }, sink).child({ name: 'log' }) : undefined
  // The console's own trouble goes into the file (it cannot go where it failed).
  const stopHearing = notes
    ? onOutputTrouble((trouble) =>
        notes.warn(
          trouble.kind === 'dropping'
            ? `${trouble.stream} cannot be written (${trouble.reason}); its lines are dropped until it can`
            : `${trouble.stream} is written again; ${trouble.dropped} writes were dropped (${trouble.reason})`,
        ),
      )
    : () => {}

  const streams: StreamEntry<LogLevel>[] = []
  if (sink && fileLevel !== 'silent') streams.push({ level: fileLevel, stream: sink })
  if (consoleLevel !== 'silent') streams.push({ level: consoleLevel, stream: toConsole })
  const lowest = LEVELS.find((level) => streams.some((entry) => entry.level === level)) ?? 'silent'
  const root = pino({ ...PINO_OPTIONS, level: lowest }, pino.multistream(streams))

  const make = (name: string): Logger => {
    const log = root.child({ name })
    const write = (level: Exclude<LogLevel, 'silent'>, message: string, fields?: LogFields): void => {
      // The one redaction rule (lib/secrets.ts) for the message: URL passwords and secret query parameters.
      if (fields) log[level](fields, withoutUrlSecrets(message))
      else log[level](withoutUrlSecrets(message))
    }
    return {
      debug: (message, fields) => write('debug', message, fields),
      info: (message, fields) => write('info', message, fields),
      warn: (message, fields) => write('warn', message, fields),
      error: (message, fields) => write('error', message, fields),
      child: (child) => make(`${name}:${child}`),
    }
  }

  return {
    ...make('manager'),
    child: (name) => make(name),
    close: () => {
      stopHearing()
      sink?.close()
    },
  }
}

/**
 * The record users read in the log file, as it was before pino: `{level, time, name, message,
 * ...fields}` with the level's name, an ISO time, and no pid or hostname.
 */
const PINO_OPTIONS = {
  base: null,
  messageKey: 'message',
  timestamp: pino.stdTimeFunctions.isoTime,
  // An error is already shown as `{name, message, code}` by lib/secrets.ts (its message redacted):
  // pino's own `err` serializer (kept unless replaced) would add an empty stack and a type.
  serializers: { err: (value: unknown) => value },
  formatters: {
    level: (label: string) => ({ level: label }),
    log: safeFields,
  },
} satisfies pino.LoggerOptions

const OWN_FIELDS = new Set(['time', 'level', 'name', 'message', 'fields'])

/**
 * A line's fields as they may be written: every secret hidden by lib/secrets.ts's rule (by name
 * at any depth, setting keys, URL passwords: pino's path-based `redact` cannot say that), and a
 * field named like one of the record's own (`message`, `level`, ...) kept under `fields` instead
 * of overwriting it.
 */
function safeFields(fields: Record<string, unknown>): Record<string, unknown> {
  const safe = withoutSecrets(fields)
  const out: Record<string, unknown> = {}
  const clashing: Record<string, unknown> = {}
  if (safe !== null && typeof safe === 'object')
    for (const [key, value] of Object.entries(safe)) setOwnProperty(OWN_FIELDS.has(key) ? clashing : out, key, value)
  if (Object.keys(clashing).length) out.fields = clashing
  return out
}
