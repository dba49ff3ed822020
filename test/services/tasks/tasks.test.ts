import { expect } from 'chai'
import { TASKS } from '../../../services/tasks/contract'
import { withManager } from '../../helpers/manager'
import { plugin, withPlugins } from '../../helpers/plugins'

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
      const running = new Promise((resolve) => bus.on('task_progress', resolve, { owner: 'test' }))
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
      const facts = await bus.request('events:read', { types: ['task_finished'] })
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
            'task_finished',
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
        const facts = await manager.bus.request('events:read', { types: ['task_started'] })
        expect(facts.map((e) => e.actor)).to.deep.equal(['plugin:jobs', 'plugin:jobs'])
      },
    ))
})
