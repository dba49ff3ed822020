import { type ErrorCode, type ErrorParams, errorCatalogue } from './error-catalogue'

/**
 * The only error type server-manager raises. It carries a stable code, the HTTP status and
 * exit code from the catalogue, and the parameters that composed its message, so the web
 * layer, the CLI and plugins all decide what to show from one place.
 */
export class SmError<C extends ErrorCode = ErrorCode> extends Error {
  override readonly name = 'SmError'
  readonly code: C
  readonly status: number
  readonly exitCode: number
  readonly params: ErrorParams<C>
  /** Whether the message may be shown to an HTTP client as it is (client errors only). */
  readonly expose: boolean

  constructor(code: C, params: ErrorParams<C>, options?: { cause?: unknown }) {
    const entry = errorCatalogue[code]
    super((entry.message as (p: ErrorParams<C>) => string)(params), options)
    this.code = code
    this.status = entry.status
    this.exitCode = entry.exit
    this.params = params
    this.expose = entry.status < 500
  }

  toJSON(): { code: C; message: string; status: number } {
    return { code: this.code, message: this.message, status: this.status }
  }
}

export function isSmError(value: unknown): value is SmError {
  return value instanceof SmError
}

/** The message of anything thrown, for composing into another error's message. */
export function reasonOf(value: unknown): string {
  if (value instanceof Error) return value.message
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value))
}

/** Keeps an SmError as it is; wraps anything else as SM_ERR_INTERNAL with the original as cause. */
export function toSmError(value: unknown): SmError {
  return isSmError(value) ? value : new SmError('SM_ERR_INTERNAL', { reason: reasonOf(value) }, { cause: value })
}
