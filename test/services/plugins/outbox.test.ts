import { MessageChannel, type MessagePort } from 'node:worker_threads'
import { expect } from 'chai'
import { type Batch, eachInTurn, outbox } from '../../../services/plugins/thread/outbox'

type Message = { readonly n: number; readonly value?: unknown }

/** What `port` receives until `count` messages (batches unpacked) have come, each as it came. */
function receive(port: MessagePort, count: number): Promise<(Message | Batch<Message>)[]> {
  const got: (Message | Batch<Message>)[] = []
  let seen = 0
  return new Promise((resolve) =>
    port.on('message', (message: Message | Batch<Message>) => {
      got.push(message)
      seen += 'messages' in message ? message.messages.length : 1
      if (seen >= count) resolve(got)
    }),
  )
}

describe('services/plugins: the outbox of a thread boundary', () => {
  it('posts the messages of one turn as one batch, in order, and a lone message as itself', async () => {
    const { port1, port2 } = new MessageChannel()
    try {
      const post = outbox<Message>(
        (batch) => port1.postMessage(batch),
        (message) => port1.postMessage(message),
      )
      const first = receive(port2, 3)
      for (const n of [1, 2, 3]) post({ n })
      expect(await first).to.deep.equal([{ t: 'batch', messages: [{ n: 1 }, { n: 2 }, { n: 3 }] }])
      port2.removeAllListeners('message')
      const lone = receive(port2, 1)
      post({ n: 4 })
      expect(await lone).to.deep.equal([{ n: 4 }])
    } finally {
      port1.close()
    }
  })

  it('posts each on its own when one of a batch cannot be cloned, so only that one fails', async () => {
    const { port1, port2 } = new MessageChannel()
    try {
      const failed: number[] = []
      const post = outbox<Message>(
        (batch) => port1.postMessage(batch),
        (message) => {
          try {
            port1.postMessage(message)
          } catch {
            failed.push(message.n)
          }
        },
      )
      const got = receive(port2, 2)
      post({ n: 1 })
      post({ n: 2, value: () => 'a function cannot be cloned' })
      post({ n: 3 })
      expect(await got).to.deep.equal([{ n: 1 }, { n: 3 }])
      expect(failed).to.deep.equal([2])
    } finally {
      port1.close()
    }
  })

  it("handles a batch's messages a turn each, posting what each answered before the next runs", async () => {
    const seen: string[] = []
    await new Promise<void>((resolve) =>
      eachInTurn(
        ['a', 'b', 'c'],
        (message) => {
          seen.push(`handle ${message}`)
          // A later call of the batch that never returns would leave the earlier ones answered.
          if (message === 'c') setImmediate(() => setImmediate(resolve))
        },
        () => seen.push('flush'),
      ),
    )
    expect(seen).to.deep.equal(['flush', 'handle a', 'flush', 'handle b', 'flush', 'handle c', 'flush'])
  })
})
