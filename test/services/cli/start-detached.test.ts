import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { expect } from 'chai'
import { cliIn } from '../../helpers/cli-in-process'
import { alive } from '../../helpers/game'
import { cliStart } from '../../helpers/run'
import { tempDir } from '../../helpers/temp-dir'

/*
 * The starts stay processes, three at once, each detaching a manager of its own: their race, exit
 * codes and detach are the point. The setting before them and the `web stop` that ends each
 * round's manager run in-process (cliIn), as clients of that detached manager.
 */

describe('services/cli: start --detached, several at once (issue 18 item 24)', function () {
  this.timeout(180_000)

  it('reports success only for the start whose own child holds the lock; each other one shows its child’s SM_ERR_MANAGER_RUNNING and exits non-zero', async () => {
    const dataDir = tempDir()
    const set = await cliIn(dataDir, ['setting', 'set', 'web.port', '0'])
    expect(set.code, set.stderr).to.equal(0)
    for (let round = 1; round <= 4; round++) {
      const results = await Promise.all([1, 2, 3].map(() => cliStart(dataDir, ['--detached'], {}, 'as set')))
      const pid = (JSON.parse(readFileSync(join(dataDir, 'manager.json'), 'utf8')) as { pid: number }).pid
      try {
        const summary = results.map((r) => `exit ${r.code}: ${r.stdout}${r.stderr}`).join('\n')
        const won = results.filter((r) => r.code === 0)
        expect(won, `round ${round}:\n${summary}`).to.have.length(1)
        // The one that says so names the manager that really runs.
        expect(won[0]?.stdout).to.include(`runs in the background (PID ${pid})`)
        for (const lost of results.filter((r) => r.code !== 0)) {
          expect(lost.stdout, summary).not.to.include('runs in the background')
          expect(lost.stderr, summary).to.match(/^Error \[SM_ERR_MANAGER_RUNNING\]: /m)
        }
      } finally {
        const stopped = await cliIn(dataDir, ['web', 'stop'])
        expect(stopped.code, stopped.stderr).to.equal(0)
      }
      // web stop answers once the manager has stopped; its process ends right after.
      while (alive(pid)) await sleep(20)
    }
  })
})
