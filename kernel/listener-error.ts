import { reasonOf, SmError } from './errors'

/** What a listener's failure becomes: its timeout as it is, anything else attributed to its owner. */
export function listenerError(owner: string, event: string, error: unknown): SmError {
  if (error instanceof SmError && error.code === 'SM_ERR_KERNEL_LISTENER_TIMEOUT') return error
  return new SmError('SM_ERR_KERNEL_LISTENER_FAILED', { owner, event, reason: reasonOf(error) }, { cause: error })
}
