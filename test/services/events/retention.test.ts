import { expect } from 'chai'
import { createKernel, silentLogger } from '../../../kernel'
import { eventsService } from '../../../services/events'
import { settingsService } from '../../../services/settings'
import { tempDir } from '../../helpers/temp-dir'

describe('services/events: scheduled retention', () => {
  it('prunes by the retention settings on its own, keeping the state intact', async () => {
    const kernel = createKernel({ config: { dataDir: tempDir() }, logger: silentLogger }).use(
      eventsService({ retention: { firstAfterMs: 50, everyMs: 50 } }),
      settingsService(),
    )
    await kernel.start()
    try {
      const { bus } = kernel
      const pruned = new Promise((resolve) => bus.on('events:pruned', resolve, { owner: 'test' }))
      await bus.request('settings:set', { key: 'events.max_events', value: 1_000 })
      await bus.request('events:append', {
        events: Array.from({ length: 2_000 }, () => ({ type: 'noise', actor: 'core', payload: {} })),
      })
      expect(await pruned).to.include({ deleted: 1_001 })
      expect((await bus.request('events:read', { limit: 1 }))[0]?.seq).to.equal(1_002)
      expect((await bus.request('settings:get', { key: 'events.max_events' })).value).to.equal(1_000)
      expect((await bus.request('events:check', {})).drifted).to.deep.equal([])
      await bus.request('events:rebuild', {})
      expect((await bus.request('settings:get', { key: 'events.max_events' })).value).to.equal(1_000)
    } finally {
      await kernel.stop()
    }
  })
})
