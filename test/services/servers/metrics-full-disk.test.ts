import { readFileSync, unlinkSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import { RunFiles } from '../../../services/servers/supervisor/run-files'
import { fill, fullDiskSuite } from '../../helpers/full-disk'
import { alive, fakeBedrockDir, nextLine, nextSamples, runState } from '../../helpers/game'

describe('services/servers: resource samples on a full disk', function () {
  this.timeout(120_000)
  const disk = fullDiskSuite('sm-metfull-')

  it('samples go on live while they cannot be written, the game and its supervisor run on, and writing resumes with space', async () => {
    await disk.ok(['setting', 'set', 'metrics.interval_s', '1'])
    await disk.ok(['server', 'add', 's1', '--dir', fakeBedrockDir()])
    await disk.ok(['server', 'start', 's1'])
    const files = RunFiles.of(disk.data, 's1')
    const { game, supervisor } = runState(disk.data, 's1') ?? {}
    const filler = join(disk.mount, 'filler')
    fill(filler)

    const live = await nextSamples(disk.data, 's1', 3)
    expect(live.every((sample) => sample.rss > 0)).to.equal(true)
    expect(alive(game?.pid)).to.equal(true)
    expect(alive(supervisor?.pid)).to.equal(true)
    const stored = () =>
      readFileSync(files.metrics, 'utf8')
        .split('\n')
        .flatMap((line) => {
          try {
            return [JSON.parse(line).t as number]
          } catch {
            return [] // a line the full disk tore: readers skip it
          }
        })
    expect(stored()).to.not.include(live.at(-1)?.t)

    // Said in its log once there is room for the line; its samples are written again from then on.
    const again = nextLine(files.supervisorLog, /samples are written to .*metrics\.jsonl again/)
    unlinkSync(filler)
    await again
    const [next] = await nextSamples(disk.data, 's1', 1)
    expect(stored()).to.include(next?.t)
    await disk.ok(['server', 'stop', 's1'])
  })
})
