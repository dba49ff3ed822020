import { statfs } from 'node:fs/promises'
import { join } from 'node:path'
import { reasonOf } from '../../kernel'
import { type MachineCpu, machineCpu, machineCpuPercent, machineMemory } from '../../lib/proc-stats'
import { RollingSeries } from '../../lib/rolling-series'
import { presentFields } from '../../lib/series-lines'
import { HOST_PEAKS, type HostSample, type SamplingSpec } from './contract'

/** The host's series: `<data dir>/metrics/host.jsonl` (and `host.downsampled.jsonl`). */
export function hostSeriesPath(dataDir: string): string {
  return join(dataDir, 'metrics', 'host.jsonl')
}

/**
 * Samples the machine in the manager, every `intervalMs`: CPU (/proc/stat), memory
 * (/proc/meminfo) and the data directory's file system (statfs). Each sample is appended to the
 * host's rolling series and handed to `onSample` (one that cannot be written, on a full disk, too).
 */
export class HostSampler {
  readonly #dataDir: string
  readonly #spec: SamplingSpec
  readonly #series: RollingSeries
  readonly #onSample: (sample: HostSample) => void
  readonly #warn: (message: string) => void
  #cpu: MachineCpu | undefined
  #timer: NodeJS.Timeout | undefined
  #latest: HostSample | undefined
  #busy = false

  constructor(options: {
    dataDir: string
    spec: SamplingSpec
    onSample: (sample: HostSample) => void
    warn: (message: string) => void
  }) {
    this.#dataDir = options.dataDir
    this.#spec = options.spec
    this.#series = new RollingSeries(hostSeriesPath(options.dataDir), options.spec.retention, HOST_PEAKS)
    this.#onSample = options.onSample
    this.#warn = options.warn
  }

  get latest(): HostSample | undefined {
    return this.#latest
  }

  start(): this {
    this.#cpu = machineCpu()
    this.#timer = setInterval(() => void this.#tick(), this.#spec.intervalMs).unref()
    return this
  }

  stop(): void {
    clearInterval(this.#timer)
    this.#timer = undefined
  }

  async #tick(): Promise<void> {
    if (this.#busy) return
    this.#busy = true
    try {
      const sample = await this.#sample()
      if (!sample || !this.#timer) return
      this.#series.record(presentFields(sample), this.#warn)
      this.#latest = sample
      this.#onSample(sample)
    } catch (error) {
      this.#warn(`a host sample failed (the next one tries again): ${reasonOf(error)}`)
    } finally {
      this.#busy = false
    }
  }

  async #sample(): Promise<HostSample | undefined> {
    const cpu = machineCpu()
    const before = this.#cpu
    this.#cpu = cpu
    const memory = machineMemory()
    if (!cpu || !before || !memory) return undefined
    const disk = await statfs(this.#dataDir).catch(() => undefined)
    // `t` first: readers find a line's time without parsing the rest.
    return {
      t: Date.now(),
      cpu: Math.round(machineCpuPercent(before, cpu) * 10) / 10,
      mem_used: memory.used,
      mem_total: memory.total,
      ...(disk ? { disk_used: (disk.blocks - disk.bfree) * disk.bsize, disk_total: disk.blocks * disk.bsize } : {}),
    }
  }
}
