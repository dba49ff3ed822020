import { type ErrorCode, type ErrorParams, errorSpec, knowErrors } from './error-catalogue'
import { kernelErrors } from './kernel-errors'

// The kernel's own codes mean what they say wherever the kernel is loaded; any other code once
// it is known to the process (knowErrors: a kernel's services, or an entry point's own list).
knowErrors(kernelErrors)

/** An SmError as it travels between processes (the bus bridge, HTTP). */
export interface WireError {
  readonly code: string
  readonly message: string
  readonly status: number
  readonly exitCode: number
  readonly params?: unknown
}

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

  constructor(code: C, params: ErrorParams<C>, options?: { cause?: unknown; wire?: WireError }) {
    const entry = errorSpec(code)
    const wire = options?.wire
    super(wire?.message ?? entry?.message(params) ?? `${code} (this code is not declared: a bug)`, options)
    this.code = code
    this.status = wire?.status ?? entry?.status ?? 500
    this.exitCode = wire?.exitCode ?? entry?.exit ?? 70
    this.params = params
    this.expose = this.status < 500
  }

  /** The error another process sent: same code, message, status and exit code. */
  static fromWire(wire: WireError): SmError {
    // Seam with another process: the parameters are the sender's, typed by the code it named; they
    // are only carried (the message is the sender's too), so nothing here reads them as that type.
    return new SmError(wire.code as ErrorCode, wire.params as never, { wire })
  }

  /**
   * The message for the panel and the HTTP API: the catalogue's web text where it has one (its
   * own message names a command line), else the message. One from another process is composed
   * again here from its parameters when this process knows the code.
   */
  get webMessage(): string {
    const web = errorSpec(this.code)?.web
    if (!web || this.params === undefined) return this.message
    try {
      return web(this.params)
    } catch {
      return this.message
    }
  }

  toJSON(): { code: C; message: string; status: number } {
    return { code: this.code, message: this.message, status: this.status }
  }

  toWire(): WireError {
    return { code: this.code, message: this.message, status: this.status, exitCode: this.exitCode, params: this.params }
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

/** How a coded error is shown to a person on a terminal: `Error [SM_ERR_…]: message`. */
export function errorLine(error: { readonly code: string; readonly message: string }): string {
  return `Error [${error.code}]: ${error.message}`
}

/**
 * Keeps an SmError as it is; a full disk becomes SM_ERR_DISK_FULL (it is the user's to fix, not
 * a bug); wraps anything else as SM_ERR_INTERNAL with the original as cause.
 */
export function toSmError(value: unknown): SmError {
  if (isSmError(value)) return value
  if (isDiskFull(value)) return new SmError('SM_ERR_DISK_FULL', { reason: reasonOf(value) }, { cause: value })
  return new SmError('SM_ERR_INTERNAL', { reason: reasonOf(value) }, { cause: value })
}

const DISK_FULL = new Set(['ENOSPC', 'EDQUOT', 'SQLITE_FULL', 'SM_ERR_DISK_FULL', 'SM_ERR_DB_FULL'])

/**
 * Whether an error (or one it was caused by) says the disk is full: a system call's ENOSPC or
 * EDQUOT, SQLite's SQLITE_FULL, or the coded errors made of them. Read paths skip a write that
 * fails this way instead of failing the read.
 */
export function isDiskFull(error: unknown): boolean {
  for (let e = error, depth = 0; e && typeof e === 'object' && depth < 8; depth++) {
    const code = (e as { code?: unknown }).code
    if (typeof code === 'string' && DISK_FULL.has(code)) return true
    e = (e as { cause?: unknown }).cause
  }
  return false
}

/**
 * A change that is only its fact (a setting, a plugin's enabled flag) failed to be recorded: a
 * full disk's error says what stays as it was (`unchanged`); any other error is left as it is.
 */
export function unchangedOnFullDisk(error: unknown, unchanged: string): unknown {
  if (!(error instanceof SmError) || error.code !== 'SM_ERR_DB_FULL') return error
  const { path } = error.params as { path: string }
  return new SmError('SM_ERR_DB_FULL', { path, unchanged }, { cause: error })
}
