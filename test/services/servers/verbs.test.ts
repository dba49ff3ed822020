import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import { withManager } from '../../helpers/manager'
import { rejection } from '../../helpers/rejection'
import { tempDir } from '../../helpers/temp-dir'

describe('services/servers: the verbs, looked up in their tables', () => {
  it('servers:begin refuses work it does not begin with a coded error, and starts no task', async () => {
    // Checked as a boundary checks it (every call, in the test build), and as the handler alone does.
    for (const checked of ['1', '0']) {
      const before = process.env.SM_CHECK_BUS
      process.env.SM_CHECK_BUS = checked
      try {
        await withManager(async ({ bus }) => {
          const dir = join(tempDir(), 'bds')
          mkdirSync(dir)
          writeFileSync(join(dir, 'bedrock_server'), '#!/bin/sh\n', { mode: 0o755 })
          await bus.request('servers:add', { name: 's1', dir })
          for (const action of ['bogus', 'toString', '__proto__', 'export']) {
            const error = await rejection(bus.request('servers:begin', { action, name: 's1' } as never))
            if (checked === '1') expect(error.code, action).to.equal('SM_ERR_BUS_BAD_PAYLOAD')
            else {
              expect(error.code, action).to.equal('SM_ERR_SERVER_ACTION_UNKNOWN')
              expect(error.message).to.contain('start, stop, restart, backup, restore')
            }
          }
          expect(await bus.request('tasks:list', {})).to.deep.equal([])
        })
      } finally {
        process.env.SM_CHECK_BUS = before
      }
    }
  })
})
