import type { Service } from '../../kernel'
import type { RootLogger } from './logger'

export { createLogger, isLogLevel, type LoggerOptions, type LogLevel, type RootLogger } from './logger'

/**
 * Owns the root logger's file: the events service, which everything needs, starts after it, so it
 * stops last and every other service can log while it shuts down.
 */
export function logService(logger: RootLogger): Service {
  return {
    name: 'log',
    start() {},
    stop: () => logger.close(),
  }
}
