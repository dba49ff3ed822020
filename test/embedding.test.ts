import { join } from 'node:path'
import { expect } from 'chai'
import { run } from './helpers/run'
import { tempDir } from './helpers/temp-dir'

describe('embedding the kernel in another program', () => {
  it('creates a manager, adds its own service, talks to settings, stops, and leaves no open handle', async () => {
    const result = await run(process.execPath, [join(__dirname, 'programs', 'embedder.js'), tempDir()], {
      timeoutMs: 15_000,
    })
    expect(result.signal, 'the process had to be killed: something stayed open').to.equal(null)
    expect(result.code, result.stderr).to.equal(0)
    expect(result.stdout.split('\n')).to.include.members([
      'greeter saw custom.greeting',
      'ahoy, embedder',
      'left open: []',
    ])
  })
})
