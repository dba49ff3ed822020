import { PassThrough, type Readable } from 'node:stream'
import { reasonOf } from '../../../kernel/errors'
import { type Batch, eachInTurn, outbox } from './outbox'
import type { ThreadError } from './protocol'
import { fromThreadError, toThreadError } from './wire'

/**
 * What the channel itself sends (docs/architecture.md, "Plugins in threads"): a call and its one
 * result, matched by the caller's id; the pieces of a streamed answer and its end; the caller's
 * acknowledgements of them (`pulled`) and its `cancel`; a ping and its pong. The ends' own
 * messages travel beside these.
 */
export type ChannelMessage<C> =
  | { readonly t: 'call'; readonly id: number; readonly body: C }
  | { readonly t: 'result'; readonly id: number; readonly ok: true; readonly value: unknown; readonly streamed?: true }
  | { readonly t: 'result'; readonly id: number; readonly ok: false; readonly error: ThreadError }
  /** A piece of a streamed answer to call `id`, and its end. */
  | { readonly t: 'chunk'; readonly id: number; readonly data: Uint8Array }
  | { readonly t: 'end'; readonly id: number; readonly error?: string }
  /** The caller sent on `bytes` of the streamed answer to call `id`: the other end may send as much again. */
  | { readonly t: 'pulled'; readonly id: number; readonly bytes: number }
  /** Nobody reads the streamed answer to call `id` any more: the other end ends its stream. */
  | { readonly t: 'cancel'; readonly id: number }
  | { readonly t: 'ping' }
  | { readonly t: 'pong' }

const CHANNEL_KINDS: ReadonlySet<string> = new Set([
  'call',
  'result',
  'chunk',
  'end',
  'pulled',
  'cancel',
  'ping',
  'pong',
])

/** An answer whose body follows as a stream (a route's): the value crosses first, then the stream's bytes. */
export class Streamed {
  constructor(
    readonly value: unknown,
    readonly stream: Readable | undefined,
  ) {}
}

/** How far a streamed answer may run ahead of what its caller has sent on (bytes). */
const STREAM_WINDOW = 1 << 20

export interface ChannelOptions<In, OwnIn, M> {
  /** Posts one message (or a batch) to the other end; throws when it cannot be cloned. */
  readonly post: (message: unknown) => void
  /**
   * This end is the worker thread: it runs the calls it is sent a turn of the event loop each,
   * and gathers its answers a turn at a time (outbox.ts); the other end gathers its calls.
   */
  readonly worker: boolean
  /** Runs a call of the other end; its value (or a `Streamed`) is the result. `id` is the call's. */
  readonly serve?: (body: In, id: number) => unknown
  /** The ends' own messages (not the channel's). */
  readonly onMessage?: (message: OwnIn) => void
  /** A message this end cannot take (a piece that is not bytes): without it, the receive throws. */
  readonly onBadMessage?: (error: unknown) => void
  /** A result of ours that cannot be cloned: what the other end is told instead. */
  readonly unsendable?: (ok: boolean, reason: string) => string
  /** A call of ours that cannot be cloned: what it fails with (the clone's own error when absent). */
  readonly unsendableCall?: (meta: M, error: unknown) => unknown
  /** A result to one of our calls has come in (a thread that drains counts what it waits for). */
  readonly onResult?: () => void
}

export interface CallOptions<M> {
  /** What the call is, kept while it waits (what the end was running, a route's page). */
  readonly meta: M
  /** How long it may take (0: as long as it takes). */
  readonly timeoutMs?: number
  /** What a call that timed out fails with (the end may also ping the other). */
  readonly timedOut?: () => unknown
  /** Resolve to `{ value, stream }`: the answer's body may follow as a stream. */
  readonly streamed?: boolean
}

interface Pending<M> {
  readonly meta: M
  readonly streamed: boolean
  readonly resolve: (value: unknown) => void
  readonly reject: (error: unknown) => void
  timer?: NodeJS.Timeout
}

/**
 * One end of a thread boundary (a plugin's thread, an inspector's): calls with ids and
 * timeouts, answered in turn; answers gathered into batches; streamed answers with
 * backpressure (the sender runs at most STREAM_WINDOW bytes ahead of what the caller has taken
 * in, and a caller that stops reading cancels); pings. Both ends are the same class: messages
 * come in through `receive` and go out through the `post` it is given, so it knows nothing of
 * workers, plugins or what the calls mean.
 */
export class Channel<Out, In, OwnOut = never, OwnIn = never, M = undefined> {
  readonly #options: ChannelOptions<In, OwnIn, M>
  readonly #pending = new Map<number, Pending<M>>()
  /** The streamed answers to our calls, by call id, with the bytes not yet acknowledged. */
  readonly #incoming = new Map<number, { readonly stream: PassThrough; owed: number }>()
  /** The streamed answers we send, by the other end's call id, with the bytes not yet acknowledged. */
  readonly #outgoing = new Map<number, { readonly stream: Readable; inFlight: number }>()
  #nextId = 1
  #closed = false
  /** Closed, our answers still go (a thread that drains after its plugin was unloaded). */
  #answering = true
  #onPong: (() => void) | undefined
  readonly #batched: ((message: ChannelMessage<Out>) => void) & { readonly flush: () => void }

  constructor(options: ChannelOptions<In, OwnIn, M>) {
    this.#options = options
    // A message gathered before the channel closed (its caller was answered with the reason) is dropped.
    this.#batched = outbox<ChannelMessage<Out>>(
      (batch) => {
        if (!this.#closed || options.worker) options.post(batch)
      },
      (message) => {
        if (!this.#closed || options.worker) this.#postOne(message)
      },
    )
  }

  /** Calls the other end; resolves to its result (with `streamed`, to `{ value, stream }`). */
  call(body: Out, options: CallOptions<M>): Promise<unknown> {
    const id = this.#nextId++
    return new Promise((resolve, reject) => {
      const pending: Pending<M> = { meta: options.meta, streamed: options.streamed === true, resolve, reject }
      const ms = options.timeoutMs ?? 0
      if (ms > 0)
        pending.timer = setTimeout(() => {
          this.#settle(id)?.reject(options.timedOut?.() ?? new Error(`the call did not return within ${ms} ms`))
        }, ms)
      this.#pending.set(id, pending)
      this.#send({ t: 'call', id, body })
    })
  }

  /** The id the next call will have (its causal chain is kept by it). */
  get nextId(): number {
    return this.#nextId
  }

  /** What a waiting call is, by its id. */
  meta(id: number): M | undefined {
    return this.#pending.get(id)?.meta
  }

  /** What the waiting calls are, oldest first. */
  waiting(): M[] {
    return [...this.#pending.values()].map(({ meta }) => meta)
  }

  /** How many of our calls wait for their result. */
  get pending(): number {
    return this.#pending.size
  }

  /** Pings the other end: resolves to whether it answered within `ms` (one ping at a time). */
  ping(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#onPong = undefined
        resolve(false)
      }, ms)
      this.#onPong = () => {
        clearTimeout(timer)
        resolve(true)
      }
      this.#options.post({ t: 'ping' })
    })
  }

  /** Posts one of the ends' own messages at once; throws when it cannot be cloned. */
  send(message: OwnOut): void {
    this.#options.post(message)
  }

  /**
   * Closes the channel (once): our waiting calls fail with `error`, the streamed answers we read
   * are destroyed with it, those we send are ended. With `answering`, our answers to the other
   * end's calls still go until `stopAnswering`.
   */
  close(error: unknown, answering = false): void {
    if (this.#closed) return
    this.#closed = true
    this.#answering = answering
    for (const id of [...this.#pending.keys()]) this.#settle(id)?.reject(error)
    const incoming = [...this.#incoming.values()]
    this.#incoming.clear()
    for (const { stream } of incoming) stream.destroy(error as Error)
    const outgoing = [...this.#outgoing.values()]
    this.#outgoing.clear()
    for (const { stream } of outgoing) stream.destroy()
  }

  stopAnswering(): void {
    this.#answering = false
  }

  /** A message (or a batch) from the other end. */
  receive(message: unknown): void {
    const batch = message as Batch<unknown> | undefined
    if (batch?.t === 'batch' && Array.isArray(batch.messages)) {
      if (this.#options.worker) eachInTurn(batch.messages, (each) => this.#receiveOne(each), this.#batched.flush)
      else for (const each of batch.messages) this.#receiveOne(each)
      return
    }
    this.#receiveOne(message)
  }

  #receiveOne(message: unknown): void {
    const onBad = this.#options.onBadMessage
    if (!onBad) {
      this.#take(message)
      return
    }
    try {
      this.#take(message)
    } catch (error) {
      onBad(error)
    }
  }

  #take(message: unknown): void {
    const kind = (message as { t?: unknown } | undefined)?.t
    if (typeof kind !== 'string' || !CHANNEL_KINDS.has(kind)) {
      this.#options.onMessage?.(message as OwnIn)
      return
    }
    const own = message as ChannelMessage<In>
    switch (own.t) {
      case 'call':
        this.#serve(own.id, own.body)
        return
      case 'result':
        this.#result(own)
        return
      case 'chunk': {
        if (!(own.data instanceof Uint8Array)) throw new TypeError('a streamed piece that is not bytes')
        const body = this.#incoming.get(own.id)
        if (!body) {
          // An answer nobody reads any more (or never did): the other end ends it.
          if (!this.#closed) this.#options.post({ t: 'cancel', id: own.id })
          return
        }
        // Acknowledged once the reader has taken it in (or at once, while the stream's buffer has room).
        body.owed += own.data.byteLength
        if (body.stream.write(own.data)) this.#pulled(own.id)
        return
      }
      case 'end': {
        const stream = this.#incoming.get(own.id)?.stream
        this.#incoming.delete(own.id)
        if (own.error) stream?.destroy(new Error(own.error))
        else stream?.end()
        return
      }
      case 'pulled': {
        const flow = this.#outgoing.get(own.id)
        if (!flow) return
        flow.inFlight -= own.bytes
        if (flow.inFlight < STREAM_WINDOW && flow.stream.isPaused()) flow.stream.resume()
        return
      }
      case 'cancel': {
        const flow = this.#outgoing.get(own.id)
        this.#outgoing.delete(own.id)
        flow?.stream.destroy()
        return
      }
      case 'ping':
        this.#options.post({ t: 'pong' })
        return
      case 'pong':
        this.#onPong?.()
        this.#onPong = undefined
        return
    }
  }

  #result(message: Extract<ChannelMessage<In>, { t: 'result' }>): void {
    const pending = this.#settle(message.id)
    if (!pending) {
      // Too late (its call timed out): an answer it streams has nobody to go to.
      if (message.ok && message.streamed && !this.#closed) this.#options.post({ t: 'cancel', id: message.id })
      return
    }
    if (!message.ok) pending.reject(fromThreadError(message.error ?? { message: 'no error given' }))
    else if (!pending.streamed) pending.resolve(message.value)
    else {
      const stream = message.streamed ? this.#streamOf(message.id) : undefined
      pending.resolve({ value: message.value, stream })
    }
    this.#options.onResult?.()
  }

  /** Runs a call of the other end and answers it; a streamed answer's body follows. */
  #serve(id: number, body: In): void {
    const fail = (error: unknown) => this.#answer({ t: 'result', id, ok: false, error: toThreadError(error) })
    const succeed = (value: unknown) => {
      if (!(value instanceof Streamed)) return this.#answer({ t: 'result', id, ok: true, value })
      this.#answer({ t: 'result', id, ok: true, value: value.value, ...(value.stream ? { streamed: true } : {}) })
      if (value.stream) this.#pipe(id, value.stream)
    }
    let value: unknown
    try {
      if (!this.#options.serve) throw new Error('this end answers no calls')
      value = this.#options.serve(body, id)
    } catch (error) {
      fail(error)
      return
    }
    if (value && typeof (value as Promise<unknown>).then === 'function') (value as Promise<unknown>).then(succeed, fail)
    else succeed(value)
  }

  /** Our answers: gathered a turn at a time on the worker's end, at once on the other. */
  #answer(message: ChannelMessage<Out>): void {
    if (this.#options.worker) this.#batched(message)
    else this.#postOne(message)
  }

  /** Our calls: gathered a turn at a time on the other end, at once on the worker's. */
  #send(message: ChannelMessage<Out>): void {
    if (this.#options.worker) this.#postOne(message)
    else this.#batched(message)
  }

  /** Posts one message; one that cannot be cloned fails only its own call or result, said so. */
  #postOne(message: ChannelMessage<Out>): void {
    if (message.t === 'result' && this.#closed && !this.#answering) return
    try {
      this.#options.post(message)
    } catch (error) {
      if (message.t === 'result') {
        const reason = this.#options.unsendable?.(message.ok, reasonOf(error)) ?? reasonOf(error)
        this.#options.post({ t: 'result', id: message.id, ok: false, error: { message: reason } })
      } else if (message.t === 'call') {
        const pending = this.#settle(message.id)
        pending?.reject(this.#options.unsendableCall?.(pending.meta, error) ?? error)
      } else throw error
    }
  }

  #settle(id: number): Pending<M> | undefined {
    const pending = this.#pending.get(id)
    if (!pending) return undefined
    this.#pending.delete(id)
    clearTimeout(pending.timer)
    return pending
  }

  /**
   * The body of a streamed answer to our call: what the other end sends is acknowledged as the
   * reader takes it in (so its stream waits on a slow reader), and a reader that goes cancels it.
   */
  #streamOf(id: number): PassThrough {
    const stream = new PassThrough()
    this.#incoming.set(id, { stream, owed: 0 })
    stream.on('drain', () => this.#pulled(id))
    stream.on('close', () => {
      // Closed before the other end's end: nobody reads it any more.
      if (this.#incoming.delete(id) && !this.#closed) this.#options.post({ t: 'cancel', id })
    })
    return stream
  }

  #pulled(id: number): void {
    const body = this.#incoming.get(id)
    if (!body || body.owed === 0 || this.#closed) return
    const bytes = body.owed
    body.owed = 0
    this.#options.post({ t: 'pulled', id, bytes })
  }

  /**
   * Sends a streamed answer's body on, piece by piece, after the answer itself: at most
   * STREAM_WINDOW bytes ahead of what the caller has taken in (the stream is paused meanwhile),
   * and destroyed when the caller cancels.
   */
  #pipe(id: number, stream: Readable): void {
    const flow = { stream, inFlight: 0 }
    this.#outgoing.set(id, flow)
    stream.on('data', (chunk: unknown) => {
      const bytes =
        chunk instanceof Uint8Array ? chunk : Buffer.from(typeof chunk === 'string' ? chunk : JSON.stringify(chunk))
      // Its own memory: a view of Node's shared pool would carry the whole 8 KiB slab across.
      const data = bytes.byteLength === bytes.buffer.byteLength ? bytes : new Uint8Array(bytes)
      flow.inFlight += data.byteLength
      this.#answer({ t: 'chunk', id, data })
      if (flow.inFlight >= STREAM_WINDOW) stream.pause()
    })
    stream.on('end', () => {
      this.#outgoing.delete(id)
      this.#answer({ t: 'end', id })
    })
    stream.on('error', (error) => {
      if (this.#outgoing.delete(id)) this.#answer({ t: 'end', id, error: reasonOf(error) })
    })
    // Destroyed by its owner without an end or an error: the reader is told it broke off.
    stream.on('close', () => {
      if (this.#outgoing.delete(id)) this.#answer({ t: 'end', id, error: 'the stream was destroyed before its end' })
    })
  }
}
