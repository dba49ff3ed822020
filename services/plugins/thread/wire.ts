import { type ErrorCode, errorSpec } from '../../../kernel/error-catalogue'
import { reasonOf, SmError } from '../../../kernel/errors'
import type { ThreadError } from './protocol'

/** An error as it crosses to or from a plugin's thread: a coded one whole, anything else by its message and stack. */
export function toThreadError(error: unknown): ThreadError {
  if (error instanceof SmError) return { coded: error.toWire() }
  const status = (error as { status?: unknown } | undefined)?.status
  return {
    message: reasonOf(error),
    stack: (error as Error | undefined)?.stack,
    ...(typeof status === 'number' ? { status } : {}),
  }
}

export function fromThreadError(error: ThreadError): Error {
  if ('coded' in error) {
    // A code this side declares is rebuilt from its parameters: the other side may not have
    // loaded the catalogue that declares it (a plugin's thread loads only what the plugin uses).
    const { code, params } = error.coded
    return errorSpec(code) ? new SmError(code as ErrorCode, params as never) : SmError.fromWire(error.coded)
  }
  const rebuilt = new Error(error.message)
  if (error.stack) rebuilt.stack = error.stack
  if (error.status !== undefined) Object.assign(rebuilt, { status: error.status, expose: error.status < 500 })
  return rebuilt
}
