import type { LogFields } from '../../kernel'

type Level = 'debug' | 'info' | 'warn' | 'error'

/** A pino destination that shows each JSON line as `12:00:00.000 WARN  [name] message key=value`. */
export interface ConsoleLines {
  write(line: string): void
  /** Says something of the log itself, straight to the console. */
  say(level: Level, name: string, message: string): void
}

/**
 * The console side of the logger, for a human running `server-manager start`: pino writes JSON,
 * this turns it back into one readable line. Writing never throws (in a CLI process the console
 * is guarded by guarded-output.ts; anything else given must not end the caller either).
 */
export function consoleLines(out: { write(text: string): unknown }): ConsoleLines {
  const show = (time: string, level: string, name: string, message: string, fields: LogFields) => {
    try {
      out.write(`${time.slice(11, 23)} ${level.toUpperCase().padEnd(5)} [${name}] ${message}${format(fields)}\n`)
    } catch {}
  }
  return {
    write(line) {
      let record: Record<string, unknown>
      try {
        record = JSON.parse(line)
      } catch {
        return // not a record of ours: nothing to show, and the caller goes on
      }
      const { time, level, name, message, ...fields } = record
      show(String(time), String(level), String(name), String(message), fields)
    },
    say: (level, name, message) => show(new Date().toISOString(), level, name, message, {}),
  }
}

function format(fields: LogFields): string {
  const parts = Object.entries(fields).map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
  return parts.length ? ` ${parts.join(' ')}` : ''
}
