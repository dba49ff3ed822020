import { readFileSync } from 'node:fs'
import { cpus } from 'node:os'
import { expect } from 'chai'
import { downsampledPath } from '../../../lib/rolling-series'
import type { ServerSample } from '../../../services/servers/supervisor/protocol'
import { RunFiles } from '../../../services/servers/supervisor/run-files'
import { cliInOk } from '../../helpers/cli-in-process'
import { fakeBedrockDir, gameDataDir, nextSamples, runState, statusJson } from '../../helpers/game'

const lines = (path: string) => {
  try {
    return readFileSync(path, 'utf8').split('\n').filter(Boolean)
  } catch {
    return []
  }
}

/** Sampling by the supervisor, with no manager: real games (the fake Bedrock), real /proc, real files. */
describe('services/servers: resource samples taken by each supervisor', function () {
  this.timeout(90_000)

  it("samples a running game from /proc (CPU between 0 and 100 × cores, its resident memory, its directory's size) into its run directory, and says the last one in its status", async () => {
    const data = gameDataDir()
    await cliInOk(data, ['setting', 'set', 'metrics.interval_s', '1'])
    await cliInOk(data, ['server', 'add', 's1', '--dir', fakeBedrockDir()])
    await cliInOk(data, ['server', 'start', 's1'])
    const [sample] = await nextSamples(data, 's1', 1)
    const pid = runState(data, 's1')?.game?.pid as number
    const vmRss = Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) * 1024
    expect(sample?.cpu).to.be.within(0, 100 * cpus().length)
    expect(sample?.rss).to.be.greaterThan(0)
    // The same process's memory, read a moment apart.
    expect(sample?.rss).to.be.within(vmRss / 2, vmRss * 2)
    expect(sample?.uptime_s).to.be.at.least(0)
    const stored = lines(RunFiles.of(data, 's1').metrics).map((line) => JSON.parse(line))
    expect(stored.at(-1)).to.deep.equal({ t: sample?.t, cpu: sample?.cpu, rss: sample?.rss, disk: sample?.disk })
    // Its directory is walked at the start, and every metrics.disk_interval_s.
    const walked = sample?.disk === undefined ? (await nextSamples(data, 's1', 1))[0] : sample
    expect(walked?.disk).to.be.greaterThan(0)

    const status = await statusJson(data, 's1')
    expect(status.metrics?.rss).to.be.greaterThan(0)
    const stats = JSON.parse(await cliInOk(data, ['server', 'stats', 's1', '--json']))
    expect(stats.status).to.equal('running')
    expect(stats.sample.cpu).to.be.within(0, 100 * cpus().length)
    expect(await cliInOk(data, ['server', 'stats', 's1'])).to.match(
      /^s1: running \(PID \d+\), up .*\ncpu\s+[\d.]+% of one core\nmemory\s+[\d.]+ MiB/,
    )
    await cliInOk(data, ['server', 'stop', 's1'])
    expect(await cliInOk(data, ['server', 'stats', 's1'])).to.match(/s1: stopped, no samples while it is not running/)
  })

  it('keeps its series bounded: with a tiny retention the samples are folded into buckets, and old buckets deleted', async () => {
    const data = gameDataDir()
    const tiny: [string, string][] = [
      ['metrics.interval_s', '1'],
      ['metrics.retention.full_rate_s', '2'],
      ['metrics.retention.bucket_s', '1'],
      ['metrics.retention.downsampled_s', '6'],
    ]
    for (const [key, value] of tiny) await cliInOk(data, ['setting', 'set', key, value])
    await cliInOk(data, ['server', 'add', 's1', '--dir', fakeBedrockDir()])
    await cliInOk(data, ['server', 'start', 's1'])
    // Long enough for the first buckets to be past their six seconds.
    const taken = await nextSamples(data, 's1', 12)
    const last = taken.at(-1) as ServerSample
    const file = RunFiles.of(data, 's1').metrics
    const full = lines(file).map((line) => JSON.parse(line).t as number)
    const buckets = lines(downsampledPath(file)).map((line) => JSON.parse(line))
    // Two seconds at full rate, plus the slack before a compaction (a bucket).
    expect(full.length).to.be.within(1, 5)
    expect(full.at(-1)).to.equal(last.t)
    // Six seconds of one-second buckets, plus the slack before a trim (a quarter, or a bucket).
    expect(buckets.length).to.be.within(1, 9)
    for (const bucket of buckets) expect(bucket.t + bucket.d).to.be.greaterThan(last.t - 8_500)
    await cliInOk(data, ['server', 'stop', 's1'])
  })

  it('takes no samples with metrics.enabled off', async () => {
    const data = gameDataDir()
    await cliInOk(data, ['setting', 'set', 'metrics.enabled', 'false'])
    await cliInOk(data, ['server', 'add', 's1', '--dir', fakeBedrockDir()])
    await cliInOk(data, ['server', 'start', 's1'])
    const spec = RunFiles.of(data, 's1').readSpec()
    expect(spec?.metrics).to.equal(undefined)
    expect((await statusJson(data, 's1')).metrics).to.equal(undefined)
    expect(await cliInOk(data, ['server', 'stats', 's1'])).to.match(/s1: running, no sample yet/)
    await cliInOk(data, ['server', 'stop', 's1'])
    expect(lines(RunFiles.of(data, 's1').metrics)).to.deep.equal([])
  })
})
