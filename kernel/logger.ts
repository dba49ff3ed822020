/** Structured fields attached to a log line. */
export type LogFields = Record<string, unknown>

/**
 * What the kernel and every service log through. The kernel only knows this shape; the
 * implementation (console plus a file in the data directory) is services/log.
 */
export interface Logger {
  debug(message: string, fields?: LogFields): void
  info(message: string, fields?: LogFields): void
  warn(message: string, fields?: LogFields): void
  error(message: string, fields?: LogFields): void
  /** A logger whose lines are tagged with `name` (a service, or `plugin:<name>`). */
  child(name: string): Logger
}

/** A logger that drops everything, for embedders that bring none. */
export const silentLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  child: () => silentLogger,
}
