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
  if (error && typeof error === 'object' && 'coded' in error && error.coded && typeof error.coded.code === 'string') {
    // A code this side declares is rebuilt from its parameters: the other side may not have
    // loaded the catalogue that declares it (a plugin's thread loads only what the plugin uses).
    const { code, params } = error.coded
    try {
      // The seam between wire data and the typed catalogue: the code is declared here, and its parameters are
      // checked against its message as it is built (a mismatch falls to the catch below).
      return errorSpec(code) ? new SmError(code as ErrorCode, params as never) : SmError.fromWire(error.coded)
    } catch {
      // Parameters that do not fit the code's message: the message sent, under the code.
      return SmError.fromWire({ ...error.coded, message: String(error.coded.message) })
    }
  }
  const rebuilt = new Error(String((error as { message?: unknown })?.message ?? 'an error'))
  if (typeof (error as { stack?: unknown }).stack === 'string') rebuilt.stack = (error as { stack: string }).stack
  const status = (error as { status?: unknown }).status
  if (typeof status === 'number') Object.assign(rebuilt, { status, expose: status < 500 })
  return rebuilt
}
