import { EventEmitter2 } from 'eventemitter2'
import { Bus } from '../kernel'
import { type Comparison, compare } from './harness'

const LISTENERS = 50

/**
 * One event to 50 listeners: our bus (timeouts for async listeners, attribution, a report)
 * against a bare EventEmitter2 `emit`, configured the same way (wildcards, ':' delimiter) and
 * plain. Each listener does a little real work with the payload.
 */
export async function dispatchBench(quick = false): Promise<Comparison[]> {
  let sink = 0
  const work = (payload: { serverName: string; n: number }) => {
    sink += payload.n + payload.serverName.length
  }
  const wild = new EventEmitter2({ wildcard: true, delimiter: ':', maxListeners: 0 })
  const plain = new EventEmitter2({ maxListeners: 0 })
  const bus = new Bus()
  for (let i = 0; i < LISTENERS; i++) {
    wild.on('after_setting_update', work)
    plain.on('after_setting_update', work)
    bus.on('after_setting_update' as 'test:x', work as (p: unknown) => void, { owner: `listener-${i}` })
  }
  const payload = { serverName: 's1', n: 1 }
  const ours = {
    run: async (n: number) => {
      for (let i = 0; i < n; i++) await bus.emit('after_setting_update' as 'test:x', payload)
    },
  }
  const results: Comparison[] = []
  for (const [label, emitter] of [
    ['EventEmitter2 emit (wildcards on)', wild],
    ['EventEmitter2 emit (plain)', plain],
  ] as const) {
    const bare = { run: (n: number) => loop(n, () => emitter.emit('after_setting_update', payload)) }
    results.push(
      await compare(
        'emit to 50 listeners',
        { baseline: [label, bare], candidate: ['Bus.emit', ours] },
        { perRound: 50_000, quick },
      ),
    )
  }
  if (sink < 0) throw new Error('unreachable: keeps the work alive')
  return results
}

function loop(n: number, fn: () => unknown): void {
  for (let i = 0; i < n; i++) fn()
}
