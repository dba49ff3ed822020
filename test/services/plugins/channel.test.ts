import { Readable } from 'node:stream'
import { MessageChannel } from 'node:worker_threads'
import { expect } from 'chai'
import { Channel, Streamed } from '../../../services/plugins/thread/channel'

/** What a promise rejects with. */
const rejection = (promise: Promise<unknown>): Promise<Error> =>
  promise.then(
    () => {
      throw new Error('it resolved')
    },
    (error: Error) => error,
  )

type Ask = { readonly n: number; readonly fn?: unknown }

/** Two ends of one channel over a real MessageChannel: `manager` calls `worker` and the other way round. */
function pair(serveWorker: (body: Ask, id: number) => unknown, serveManager: (body: Ask) => unknown = () => 'ok') {
  const { port1, port2 } = new MessageChannel()
  const manager = new Channel<Ask, Ask, { t: 'own' }, never, string>({
    post: (message) => port1.postMessage(message),
    worker: false,
    serve: serveManager,
  })
  const worker = new Channel<Ask, Ask>({
    post: (message) => port2.postMessage(message),
    worker: true,
    serve: serveWorker,
  })
  port1.on('message', (message) => manager.receive(message))
  port2.on('message', (message) => worker.receive(message))
  const close = () => {
    port1.close()
    port2.close()
  }
  return { manager, worker, close }
}

describe('services/plugins: the thread channel', () => {
  it('answers calls both ways by id, a failure as the error it was, and one that cannot be cloned fails only itself', async () => {
    const { manager, worker, close } = pair(
      async ({ n }) => {
        if (n === 2) throw new Error('two is refused')
        if (n === 3) return () => 1
        return n * 10
      },
      ({ n }) => n + 1,
    )
    try {
      const [one, two, three, four] = await Promise.allSettled(
        [1, 2, 3, 4].map((n) => manager.call({ n }, { meta: `${n}` })),
      )
      expect(one).to.deep.equal({ status: 'fulfilled', value: 10 })
      expect((two as PromiseRejectedResult).reason.message).to.equal('two is refused')
      expect((three as PromiseRejectedResult).reason.message).to.contain('could not be cloned')
      expect(four).to.deep.equal({ status: 'fulfilled', value: 40 })
      expect(await worker.call({ n: 5 }, { meta: undefined })).to.equal(6)
      // A call of the worker's that cannot be cloned fails at once, with the clone's own error.
      expect((await rejection(worker.call({ n: 6, fn: () => 1 }, { meta: undefined }))).message).to.match(
        /could not be cloned/,
      )
    } finally {
      close()
    }
  })

  it('fails a call that does not return in time, and a ping says whether the other end still answers', async () => {
    const { manager, close } = pair(() => new Promise(() => {}))
    try {
      const error = await rejection(
        manager.call({ n: 1 }, { meta: 'slow', timeoutMs: 50, timedOut: () => new Error('too slow') }),
      )
      expect(error.message).to.equal('too slow')
      expect(manager.pending).to.equal(0)
      expect(await manager.ping(1000)).to.equal(true)
    } finally {
      close()
    }
  })

  it('fails every waiting call when closed, with the reason given', async () => {
    const { manager, close } = pair(() => new Promise(() => {}))
    try {
      const waiting = manager.call({ n: 1 }, { meta: 'its onLoad' })
      expect(manager.waiting()).to.deep.equal(['its onLoad'])
      manager.close(new Error('the thread ended'))
      expect((await rejection(waiting)).message).to.equal('the thread ended')
    } finally {
      close()
    }
  })

  it('streams an answer under a window: the sender waits on a slow reader, and a reader that goes cancels it', async () => {
    let produced = 0
    let destroyed = false
    const endless = new Readable({
      read() {
        produced += 64 * 1024
        this.push(Buffer.alloc(64 * 1024))
      },
      destroy(error, callback) {
        destroyed = true
        callback(error)
      },
    })
    const { manager, close } = pair(() => new Streamed({ status: 200 }, endless))
    try {
      const { value, stream } = (await manager.call({ n: 1 }, { meta: 'route', streamed: true })) as {
        value: unknown
        stream: Readable
      }
      expect(value).to.deep.equal({ status: 200 })
      await new Promise((resolve) => setTimeout(resolve, 300))
      // Nobody reads: the sender stops about a window (1 MiB) ahead, plus what its stream buffers.
      expect(produced).to.be.below(4 * 1024 * 1024)
      stream.destroy()
      await new Promise((resolve) => setTimeout(resolve, 200))
      expect(destroyed).to.equal(true)
    } finally {
      close()
    }
  })
})
