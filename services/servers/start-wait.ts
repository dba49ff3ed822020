import { SmError } from '../../kernel'
import { lastConsoleLines } from '../../lib/log-tail'
import type { ServerRecord, StartReply } from './contract'
import { SupervisorClient } from './supervisor/client'
import type { RunFiles } from './supervisor/run-files'

/**
 * Waits for a new run to be up, or to fail: the first status past `starting` decides, or its
 * supervisor's end, or `timeoutS`. `recordAfter` runs once its supervisor has answered (the
 * journal of the start is recorded).
 */
export async function awaitUp(
  server: ServerRecord,
  files: RunFiles,
  timeoutS: number,
  recordAfter: () => Promise<void>,
): Promise<StartReply> {
  const client = await SupervisorClient.connect(files, server.name)
  const failed = (reason: string) => {
    const log = lastConsoleLines(files.log, 5)
    return new SmError('SM_ERR_SERVER_START_FAILED', {
      server: server.name,
      reason,
      log: log.length ? ` Its last console lines:\n  ${log.join('\n  ')}\n` : '',
    })
  }
  const verdict = (status: string, reason: string | undefined): StartReply | SmError | undefined => {
    if (status === 'running')
      return { status: 'running', pid: files.readState()?.game?.pid, mode: files.readState()?.mode ?? 'detached' }
    if (status === 'starting') return undefined
    return failed(reason ?? status)
  }
  if (!client) {
    const state = files.readState()
    const v = verdict(state?.status ?? 'stopped', state?.reason)
    if (v instanceof SmError) throw v
    if (v) return v
    throw failed('its supervisor ended before it could be asked')
  }
  try {
    return await new Promise<StartReply>((resolvePromise, reject) => {
      const decide = (status: string, reason: string | undefined) => {
        const v = verdict(status, reason)
        if (v instanceof SmError) reject(v)
        else if (v) resolvePromise(v)
      }
      const timer = setTimeout(
        () => reject(new SmError('SM_ERR_SERVER_START_TIMEOUT', { server: server.name, seconds: timeoutS })),
        timeoutS * 1000,
      )
      client.onClose(() => {
        clearTimeout(timer)
        const state = files.readState()
        decide(
          state?.status === 'starting' ? 'error' : (state?.status ?? 'error'),
          state?.reason ?? 'its supervisor ended',
        )
      })
      client
        .subscribe(
          0,
          () => {},
          (entry) => decide(entry.status, entry.reason),
        )
        .then((now) => decide(now.status, now.reason), reject)
    })
  } finally {
    client.close()
    await recordAfter()
  }
}
