/** The metrics service's contract on the bus: its commands and its event as schemas. */
import { z } from 'zod'
import { type CommandsOf, command, defineCommands, defineEvents, type EventsOf, empty } from '../../kernel'
import type { Retention } from '../../lib/rolling-series'
import type { SeriesReply, SeriesRequest } from '../../lib/series-query'
import { seriesReply, seriesRequest } from '../../lib/series-schema'

export type { Retention, SeriesReply, SeriesRequest }

/** The fields of the host's samples, and those whose peak buckets keep. */
export const HOST_FIELDS = ['cpu', 'mem_used', 'mem_total', 'disk_used', 'disk_total'] as const
export const HOST_PEAKS = ['cpu', 'mem_used'] as const

/** How often resource samples are taken, and how long they are kept (the `metrics.*` settings). */
const samplingSpec = z.object({
  intervalMs: z.number(),
  /** How often a server's directory is walked for its size on disk. */
  diskIntervalMs: z.number(),
  /** How long samples are kept: at full rate, then as buckets of `bucketMs`. */
  retention: z.object({ fullRateMs: z.number(), downsampledMs: z.number(), bucketMs: z.number() }).readonly(),
})
export type SamplingSpec = Readonly<z.output<typeof samplingSpec>>

/**
 * The machine the manager runs on, when it last looked: CPU use (% of all cores), memory used and
 * total (bytes; used is what is not available to new work), and the data directory's file system
 * (bytes used and total).
 */
const hostSample = z.object({
  /** When, in ms since the epoch. */
  t: z.number(),
  cpu: z.number(),
  mem_used: z.number(),
  mem_total: z.number(),
  disk_used: z.number().optional(),
  disk_total: z.number().optional(),
})
export type HostSample = Readonly<z.output<typeof hostSample>>

export const metricsEvents = defineEvents(
  'metrics',
  {
    /** A new sample of the host (in the manager, live; not recorded: samples are a rolling series). */
    'metrics:host_sampled': z.object({ sample: hostSample }),
  },
  {
    'metrics:host_sampled': 'host_metrics', // formerly
  },
)

export const metricsCommands = defineCommands('metrics', {
  /** How samples are taken now (the settings), or undefined when sampling is off (`metrics.enabled`). */
  'metrics:sampling': command(empty, samplingSpec.optional()),
  /** The host's last sample, while the manager samples it. */
  'metrics:host': command(empty, z.object({ sample: hostSample.optional() })),
  /**
   * The host's samples over a range (`<data dir>/metrics/host.jsonl`, and its downsampled file
   * for older ones): from and to in ms since the epoch (default: the last hour), and a step in
   * seconds (0 or none: as stored, averaged only past 1000 points). The reply's columns: `t` (ms)
   * and one per field, null where a point lacks it.
   */
  'metrics:host_series': command(seriesRequest, seriesReply(HOST_FIELDS, HOST_PEAKS)),
})

declare module '../../kernel/maps' {
  interface EventMap extends EventsOf<typeof metricsEvents> {}

  interface CommandMap extends CommandsOf<typeof metricsCommands> {}
}
