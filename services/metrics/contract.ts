import type { Retention } from '../../lib/rolling-series'
import type { SeriesReply, SeriesRequest } from '../../lib/series-query'

export type { Retention, SeriesReply, SeriesRequest }

/** How often resource samples are taken, and how long they are kept (the `metrics.*` settings). */
export interface SamplingSpec {
  readonly intervalMs: number
  /** How often a server's directory is walked for its size on disk. */
  readonly diskIntervalMs: number
  readonly retention: Retention
}

/**
 * The machine the manager runs on, when it last looked: CPU use (% of all cores), memory used and
 * total (bytes; used is what is not available to new work), and the data directory's file system
 * (bytes used and total).
 */
export interface HostSample {
  /** When, in ms since the epoch. */
  readonly t: number
  readonly cpu: number
  readonly mem_used: number
  readonly mem_total: number
  readonly disk_used?: number
  readonly disk_total?: number
}

declare module '../../kernel/maps' {
  interface EventMap {
    /** A new sample of the host (in the manager, live; not recorded: samples are a rolling series). */
    'metrics:host_sampled': { readonly sample: HostSample }
  }

  interface CommandMap {
    /** How samples are taken now (the settings), or undefined when sampling is off (`metrics.enabled`). */
    'metrics:sampling': { payload: Record<string, never>; reply: SamplingSpec | undefined }
    /** The host's last sample, while the manager samples it. */
    'metrics:host': { payload: Record<string, never>; reply: { sample: HostSample | undefined } }
    /** The host's samples over a range (`<data dir>/metrics/host.jsonl`, and its downsampled file for older ones). */
    'metrics:host_series': {
      payload: SeriesRequest
      reply: SeriesReply<'cpu' | 'cpu_max' | 'mem_used' | 'mem_used_max' | 'mem_total' | 'disk_used' | 'disk_total'>
    }
  }
}
