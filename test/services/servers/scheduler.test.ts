import { expect } from 'chai'
import type { BusScope } from '../../../kernel'
import { silentLogger } from '../../../manager'
import { type Schedule, Scheduler } from '../../../services/servers/schedules'

/** Issue 34 item 6 (the second probe): a schedule changed in place runs as it is now, at once. */
describe('services/servers: the scheduler takes a schedule changed in place', () => {
  it('arms it again: after the change only the new command runs', async () => {
    // Only its runs are looked at here: the fact each run records goes nowhere.
    const bus = { emit: async () => undefined } as unknown as BusScope
    const ran: (string | undefined)[] = []
    let changedRan: () => void = () => {}
    const changed = new Promise<void>((resolve) => {
      changedRan = resolve
    })
    const scheduler = new Scheduler(bus, silentLogger, async (schedule) => {
      ran.push(schedule.command)
      if (schedule.command === 'say b') changedRan()
    })
    const every: Schedule = {
      id: 'x1',
      server: 's1',
      cron: '* * * * * *',
      action: 'command',
      command: 'say a',
      addedAt: new Date().toISOString(),
    }
    scheduler.start([every])
    scheduler.sync([{ ...every, command: 'say b' }])
    try {
      await changed
    } finally {
      scheduler.stop()
    }
    expect(
      ran.every((command) => command === 'say b'),
      ran.join(', '),
    ).to.equal(true)
  })
})
