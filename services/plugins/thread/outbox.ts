/** Several messages posted as one (`{ t: 'batch' }`), in order. */
export interface Batch<M> {
  readonly t: 'batch'
  readonly messages: readonly M[]
}

/**
 * Gathers the messages posted in one turn of the event loop and posts them as one batch once
 * the turn's I/O is done (setImmediate): under load, a thread's calls and their results then cross
 * a few at a time, not one wake-up of the other thread each. `send` posts; `one` posts a single
 * message, answering for it when it cannot be cloned (so one bad value fails only its own call).
 */
export function outbox<M>(send: (batch: Batch<M>) => void, one: (message: M) => void): Outbox<M> {
  let queue: M[] = []
  const flush = () => {
    const messages = queue
    queue = []
    if (messages.length === 0) return
    if (messages.length === 1) return one(messages[0] as M)
    try {
      send({ t: 'batch', messages })
    } catch {
      // One of them cannot be cloned: each on its own, so only that one fails.
      for (const message of messages) one(message)
    }
  }
  const post = (message: M) => {
    if (queue.push(message) === 1) setImmediate(flush)
  }
  return Object.assign(post, { flush })
}

/** Posts a message with the turn's others; `flush` posts what is gathered now. */
export type Outbox<M> = ((message: M) => void) & { readonly flush: () => void }

/**
 * Handles a batch's messages one turn of the event loop each, posting what the previous one
 * answered first (`flush`): a call that answers at once is not held up, or lost, by a later call
 * of the same batch that runs long, loops or ends the thread.
 */
export function eachInTurn<M>(messages: readonly M[], handle: (message: M) => void, flush: () => void): void {
  let next = 0
  const step = () => {
    flush()
    const message = messages[next++]
    if (message === undefined) return
    handle(message)
    if (next < messages.length) setImmediate(step)
    else setImmediate(flush)
  }
  step()
}
