import { type ActionOutcome, SmError } from '../../kernel'
import { runUnderWay } from './live-follow'
import { MAX_COMMAND_BYTES } from './supervisor/limits'
import type { RunStatus } from './supervisor/protocol'

/** The coded error a start of a run under way, or a stop of none, gets; undefined when it can go ahead. */
export function powerRefusal(server: string, now: RunStatus, action: 'start' | 'stop'): SmError | undefined {
  const underWay = runUnderWay(now)
  if (action === 'start' && underWay)
    return new SmError('SM_ERR_SERVER_ALREADY_RUNNING', {
      server,
      status: now.status,
      pid: String(now.pid ?? 'unknown'),
    })
  if (action === 'stop' && !underWay)
    return new SmError('SM_ERR_SERVER_NOT_RUNNING', { server, status: now.status, action: 'be stopped' })
  return undefined
}

/** Why a console command cannot be sent, or undefined. */
export function commandProblem(command: unknown): string | undefined {
  if (typeof command !== 'string' || command.trim() === '') return 'it is empty'
  if (/[\r\n\0]/.test(command)) return 'it holds a line break or NUL (send one command at a time)'
  if (Buffer.byteLength(command) > MAX_COMMAND_BYTES) return `it is longer than ${MAX_COMMAND_BYTES} bytes`
  return undefined
}

/** An action's value, or its veto (SM_ERR_SERVER_CHANGE_CANCELLED) or failure thrown. */
export function settled<T>(outcome: ActionOutcome<T>, server: string, action: string): T {
  if (outcome.status === 'cancelled')
    throw new SmError('SM_ERR_SERVER_CHANGE_CANCELLED', {
      server,
      action,
      by: outcome.by,
      reason: outcome.reason,
    })
  if (outcome.status === 'error') throw outcome.error
  const { value, unrecorded } = outcome
  if (unrecorded === undefined || value === null || typeof value !== 'object' || Array.isArray(value)) return value
  // Done is done: a caller told of a failure would do it again.
  const warning = `${action} '${server}' is done, but not recorded in the event log; do not repeat it. ${unrecorded}`
  // A warning of the work's own (a server stopped for a backup) is kept before it.
  const own = (value as { warning?: unknown }).warning
  return { ...value, warning: typeof own === 'string' ? `${own} ${warning}` : warning } as T
}
