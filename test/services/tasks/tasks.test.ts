import { expect } from 'chai'
import { TASKS } from '../../../services/tasks/contract'
import { fakeBedrockDir, gameDataDir } from '../../helpers/game'
import { withManager } from '../../helpers/manager'
import { plugin, withPlugins } from '../../helpers/plugins'
import { cli } from '../../helpers/run'

describe('services/tasks: long work as tracked tasks', () => {
  it('runs at most tasks.max_concurrent at once, queues the rest in order, and records each as facts', () =>
    withManager(async ({ bus, registry }) => {
      await bus.request('settings:set', { key: 'tasks.max_concurrent', value: 1 })
      const tasks = registry.resolve(TASKS)
      let release!: () => void
      const gate = new Promise<void>((resolve) => {
        release = resolve
      })
      const order: string[] = []
      const running = new Promise((resolve) => bus.on('tasks:progress', resolve, { owner: 'test' }))
      const first = tasks.run('first', async (ctx) => {
        order.push('first')
        ctx.progress(50, 'half way')
        await gate
        return { ok: 1 }
      })
      const second = tasks.run('second', async () => {
        order.push('second')
        return 2
      })
      const third = tasks.run('third', async () => 3)
      // Observed at once: its cancellation rejects it long before the assertion below.
      const thirdOutcome = third.done.then(
        () => undefined,
        (e) => e,
      )
      await running
      const listed = await bus.request('tasks:list', {})
      expect(listed.map((t) => [t.name, t.state])).to.deep.equal([
        ['third', 'queued'],
        ['second', 'queued'],
        ['first', 'running'],
      ])
      expect(listed[2]).to.include({ percent: 50, message: 'half way' })
      const cancelled = await bus.request('tasks:cancel', { id: third.id })
      expect(cancelled.name).to.equal('third')
      release()
      expect(await first.done).to.deep.equal({ ok: 1 })
      expect(await second.done).to.equal(2)
      const error = await thirdOutcome
      expect(error?.code).to.equal('SM_ERR_TASK_CANCELLED')
      expect(order).to.deep.equal(['first', 'second'])
      const facts = await bus.request('events:read', { types: ['tasks:finished'] })
      const states = Object.fromEntries(
        facts.map((e) => [(e.payload as { name: string }).name, (e.payload as { state: string }).state]),
      )
      expect(states).to.deep.equal({ first: 'succeeded', second: 'succeeded', third: 'cancelled' })
      expect((await bus.request('tasks:get', { id: first.id })).result).to.deep.equal({ ok: 1 })
    }))

  it('gives plugins this.api.runTask: an id at once, progress, and a failure recorded with its code', () =>
    withPlugins(
      {
        'jobs.ts': plugin(
          'Jobs',
          `async onLoad() {
            await this.api.listenForEvent('jobs:go', async () => {
              await this.api.runTask('count', async ({ progress }) => { progress(100, 'done'); return 42 })
              await this.api.runTask('fail', async () => { throw new Error('disk full') })
            })
          }`,
        ),
      },
      { enable: ['jobs'] },
      async ({ manager }) => {
        const finished: { name: string; state: string; result?: unknown; error?: { message: string } }[] = []
        const both = new Promise<void>((resolve) =>
          manager.bus.on(
            'tasks:finished',
            (p) => {
              finished.push(p as (typeof finished)[number])
              if (finished.length === 2) resolve()
            },
            { owner: 'test' },
          ),
        )
        const report = await manager.bus.request('plugins:trigger_event', { event: 'jobs:go', payload: {} })
        expect(report.delivered).to.equal(1)
        await both
        expect(finished.find((f) => f.name === 'jobs: count')).to.include({ state: 'succeeded', result: 42 })
        expect(finished.find((f) => f.name === 'jobs: fail')?.error?.message).to.match(/disk full/)
        const facts = await manager.bus.request('events:read', { types: ['tasks:started'] })
        expect(facts.map((e) => e.actor)).to.deep.equal(['plugin:jobs', 'plugin:jobs'])
      },
    ))

  it('cancels a running task at once by its short id, even when its work ignores the signal, and frees its slot (issue 18 items 18, 26)', () =>
    withManager(async ({ bus, registry }) => {
      await bus.request('settings:set', { key: 'tasks.max_concurrent', value: 1 })
      const tasks = registry.resolve(TASKS)
      let started!: () => void
      const running = new Promise<void>((resolve) => {
        started = resolve
      })
      // Never ends and never looks at its signal.
      const stuck = tasks.run('stuck', () => {
        started()
        return new Promise(() => {})
      })
      const stuckOutcome = stuck.done.then(
        () => undefined,
        (e) => e,
      )
      const next = tasks.run('next', async () => 'ran')
      await running
      const cancelled = await bus.request('tasks:cancel', { id: stuck.id.slice(0, 8) })
      expect(cancelled).to.include({ id: stuck.id, state: 'cancelled' })
      expect((await stuckOutcome)?.code).to.equal('SM_ERR_TASK_CANCELLED')
      // Its slot went to the next one.
      expect(await next.done).to.equal('ran')
      expect((await bus.request('tasks:get', { id: next.id.slice(0, 8) })).state).to.equal('succeeded')
      const again = await bus.request('tasks:cancel', { id: stuck.id.slice(0, 8) }).catch((e) => e)
      expect(again.code).to.equal('SM_ERR_TASK_FINISHED')
    }))

  it("gives the work its task's signal, and cancelling a task aborts the signals of the tasks it started", () =>
    withManager(async ({ registry }) => {
      const tasks = registry.resolve(TASKS)
      expect(tasks.signal()).to.equal(undefined)
      let childSignal: AbortSignal | undefined
      let started!: () => void
      const childRuns = new Promise<void>((resolve) => {
        started = resolve
      })
      const parent = tasks.run('parent', async (ctx) => {
        expect(tasks.signal()).to.equal(ctx.signal)
        const child = tasks.run('child', async (inner) => {
          childSignal = tasks.signal()
          expect(childSignal).to.equal(inner.signal)
          started()
          // Ends only when its own signal is aborted.
          await new Promise((_, reject) => inner.signal.addEventListener('abort', () => reject(inner.signal.reason)))
        })
        return child.done
      })
      const parentOutcome = parent.done.catch((e) => e)
      await childRuns
      await tasks.cancel(parent.id)
      expect((await parentOutcome)?.code).to.equal('SM_ERR_TASK_CANCELLED')
      expect(childSignal?.aborted).to.equal(true)
      const child = tasks.list(10).find((t) => t.name === 'child')
      expect(child?.state).to.equal('cancelled')
    }))

  it('takes any unique prefix of a task id, and refuses an ambiguous one listing the candidates (issue 18 item 26)', () =>
    withManager(async ({ bus, registry }) => {
      const tasks = registry.resolve(TASKS)
      // Seventeen ids: two of them share their first hex digit.
      const ids: string[] = []
      for (let i = 0; i < 17; i++) {
        const { id, done } = tasks.run(`t${i}`, async () => i)
        await done
        ids.push(id)
      }
      const shared = ids.map((id) => id[0]).find((c, i, all) => all.indexOf(c) !== i) as string
      const error = await bus.request('tasks:get', { id: shared }).catch((e) => e)
      expect(error.code).to.equal('SM_ERR_TASK_AMBIGUOUS')
      for (const id of ids.filter((i) => i.startsWith(shared))) expect(error.message).to.include(id)
      const unique = ids[0] as string
      expect((await bus.request('tasks:get', { id: unique.slice(0, 8).toUpperCase() })).id).to.equal(unique)
      const missing = await bus.request('tasks:get', { id: 'zz' }).catch((e) => e)
      expect(missing.code).to.equal('SM_ERR_TASK_NOT_FOUND')
    }))

  it('tasks cancel accepts the 8-character id tasks prints, from the CLI (issue 18 item 26)', async () => {
    const data = gameDataDir()
    expect((await cli(data, ['server', 'add', 's1', '--dir', fakeBedrockDir()])).code).to.equal(0)
    expect((await cli(data, ['server', 'backup', 's1', '--type', 'config'])).code).to.equal(0)
    const listed = await cli(data, ['tasks'])
    const short = /^([0-9a-f]{8}) +succeeded .*backup s1$/m.exec(listed.stdout)?.[1] as string
    expect(short, listed.stdout).to.be.a('string')
    // A task that ended in its own (one-shot) process is listed as it ended, not as one that never did.
    const json = JSON.parse((await cli(data, ['tasks', '--json'])).stdout) as { state: string; message?: string }[]
    expect(json.map((t) => [t.state, t.message])).to.deep.equal([['succeeded', undefined]])
    // Found by its short id; it has already ended, which is said with a code.
    const cancel = await cli(data, ['tasks', 'cancel', short])
    expect(cancel.code, cancel.stderr).to.equal(65)
    expect(cancel.stderr).to.match(
      /^Error \[SM_ERR_TASK_FINISHED\]: The task 'backup s1' \([0-9a-f-]{36}\) has already ended/m,
    )
    const unknown = await cli(data, ['tasks', 'cancel', 'ffffffff-0000'])
    expect(unknown.code).to.equal(66)
    expect(unknown.stderr).to.include('SM_ERR_TASK_NOT_FOUND')
  })
})
