import { appendFileSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import { downsampledPath, RollingSeries } from '../../lib/rolling-series'
import { readSeries } from '../../lib/series-query'
import { tempDir } from '../helpers/temp-dir'

const S = 1000
const lines = (path: string) => {
  try {
    return readFileSync(path, 'utf8').split('\n').filter(Boolean)
  } catch {
    return []
  }
}
type Read = { stepMs: number; columns: Record<string, number[]> & { t: number[] } }
const read = (path: string, from: number, to: number, stepMs = 0) =>
  readSeries(path, ['cpu', 'rss'], ['cpu'], { from, to, stepMs }) as Read

/**
 * The rolling series on real files, with sample times given (no clock): what it keeps, what it
 * folds into buckets, what a crash leaves behind and how readers take it.
 */
describe('lib/rolling-series: a time series in two append-only files', () => {
  it('stays bounded however long it runs: hours of 1 s samples with 100 s at full rate and 1000 s of 10 s buckets', () => {
    const path = join(tempDir(), 'm.jsonl')
    const series = new RollingSeries(path, { fullRateMs: 100 * S, downsampledMs: 1000 * S, bucketMs: 10 * S }, ['cpu'])
    let mostFull = 0
    let mostBuckets = 0
    for (let t = 0; t < 4_000 * S; t += S) {
      series.append({ t, cpu: (t / S) % 20, rss: 1000 })
      series.compactIfDue(t)
      if (t % (37 * S) === 0) {
        mostFull = Math.max(mostFull, lines(path).length)
        mostBuckets = Math.max(mostBuckets, lines(downsampledPath(path)).length)
      }
    }
    // A quarter (or a bucket) more than its span before it is compacted.
    expect(mostFull).to.be.at.most(126)
    expect(mostBuckets).to.be.at.most(126)
    const now = 3_999 * S
    const full = lines(path).map((line) => JSON.parse(line).t as number)
    expect(full[0]).to.be.at.least(now - 126 * S)
    expect(full.at(-1)).to.equal(now)
    const buckets = lines(downsampledPath(path)).map((line) => JSON.parse(line))
    expect(buckets[0].t).to.be.at.least(now - 1260 * S)
    // A bucket is the average of its ten samples, with the peak of the fields that keep one.
    const bucket = buckets.at(-1)
    expect(bucket).to.include({ d: 10 * S, n: 10, rss: 1000 })
    expect(bucket.cpu_max - bucket.cpu).to.equal(4.5)
    expect(bucket).to.not.have.property('rss_max')
  })

  it('reads a range from both files, buckets before samples, and averages past the points asked for', () => {
    const path = join(tempDir(), 'm.jsonl')
    const series = new RollingSeries(path, { fullRateMs: 60 * S, downsampledMs: 3600 * S, bucketMs: 10 * S }, ['cpu'])
    for (let t = 0; t <= 600 * S; t += S) {
      series.append({ t, cpu: 10, rss: 2000 })
      series.compactIfDue(t)
    }
    const all = read(path, 0, 600 * S)
    const t = all.columns.t as number[]
    expect(t).to.deep.equal([...t].sort((a, b) => a - b))
    expect(new Set(t).size).to.equal(t.length)
    expect(t[0]).to.equal(0)
    expect(t.at(-1)).to.equal(600 * S)
    // Buckets every 10 s, then the samples kept at full rate every second.
    expect(t[1]).to.equal(10 * S)
    expect(t.slice(-3)).to.deep.equal([598 * S, 599 * S, 600 * S])
    // A range from a bucket's end on starts with the next one.
    expect(read(path, 100 * S, 600 * S).columns.t.slice(0, 2)).to.deep.equal([100 * S, 110 * S])
    expect(all.columns.cpu?.every((v) => v === 10)).to.equal(true)
    expect(all.columns.cpu_max?.every((v) => v === 10)).to.equal(true)
    const coarse = read(path, 0, 600 * S, 60 * S)
    expect(coarse.stepMs).to.equal(60 * S)
    expect(coarse.columns.t).to.have.length(11)
    expect(coarse.columns.rss?.every((v) => v === 2000)).to.equal(true)
    const capped = readSeries(path, ['cpu', 'rss'], ['cpu'], { from: 0, to: 600 * S, maxPoints: 20 }) as Read
    expect(capped.stepMs).to.equal(30 * S)
    expect(capped.columns.t.length).to.be.at.most(21)
    expect(read(path, 700 * S, 800 * S).columns.t).to.deep.equal([])
  })

  it('tolerates a torn last line: readers skip it, and the next append starts on a line of its own', () => {
    const path = join(tempDir(), 'm.jsonl')
    const retention = { fullRateMs: 3600 * S, downsampledMs: 86_400 * S, bucketMs: 60 * S }
    const before = new RollingSeries(path, retention, ['cpu'])
    before.append({ t: 1 * S, cpu: 1, rss: 1 })
    before.append({ t: 2 * S, cpu: 2, rss: 2 })
    // A crash mid-write.
    appendFileSync(path, '{"t":3000,"cpu":3,"r')
    expect(read(path, 0, 10 * S).columns.t).to.deep.equal([1 * S, 2 * S])
    // The next process (a new supervisor) appends after it.
    const after = new RollingSeries(path, retention, ['cpu'])
    after.append({ t: 4 * S, cpu: 4, rss: 4 })
    expect(read(path, 0, 10 * S).columns.cpu).to.deep.equal([1, 2, 4])
    expect(lines(path)).to.have.length(4)
  })

  it('loses nothing to a crash between writing the buckets and rewriting the samples: a bucket written twice counts once', () => {
    const path = join(tempDir(), 'm.jsonl')
    const retention = { fullRateMs: 20 * S, downsampledMs: 3600 * S, bucketMs: 10 * S }
    const series = new RollingSeries(path, retention, ['cpu'])
    for (let t = 0; t < 40 * S; t += S) {
      series.append({ t, cpu: 5, rss: 5 })
      series.compactIfDue(t)
    }
    const buckets = lines(downsampledPath(path))
    expect(buckets.length).to.be.greaterThan(0)
    // As if the last fold had appended its buckets and died before its rename: they are there twice.
    appendFileSync(downsampledPath(path), `${buckets.join('\n')}\n`)
    const { columns } = read(path, 0, 40 * S)
    expect(new Set(columns.t).size).to.equal(columns.t.length)
    // A leftover temporary file of a rewrite that died is simply written over by the next one.
    writeFileSync(`${path}.tmp`, 'half a rewrite')
    for (let t = 40 * S; t < 80 * S; t += S) {
      series.append({ t, cpu: 5, rss: 5 })
      series.compactIfDue(t)
    }
    expect(read(path, 0, 80 * S).columns.t.at(-1)).to.equal(79 * S)
  })
})
