import { z } from 'zod'

/**
 * A series request and reply as schemas (the servers' and the host's resource series): declared
 * once for the bus contracts and the web API. Only the manager loads it; series-query.ts takes
 * its types from here without loading zod.
 */

/** A range of a series as callers ask for it: from and to in ms since the epoch (default: the last hour), and a step. */
export const seriesRequest = z.object({
  from: z.number().optional(),
  to: z.number().optional(),
  /** Points averaged over this many seconds; 0 or none: as stored, averaged only past 1000 points. */
  stepS: z.number().optional(),
})

const column = z.array(z.number().nullable())

/**
 * A series as a chart draws it: the range asked, the step its points stand for (0: as taken), and
 * its columns: `t` (ms) and one per field and per peak (`<field>_max`), null where a point lacks it.
 */
export function seriesReply<F extends string, P extends F>(fields: readonly F[], peaks: readonly P[]) {
  const names = [...fields, ...peaks.map((peak) => `${peak}_max` as const)]
  const columns = Object.fromEntries(names.map((name) => [name, column])) as {
    [K in F | `${P}_max`]: typeof column
  }
  return z.object({
    from: z.number(),
    to: z.number(),
    step_s: z.number().meta({ description: 'what one point stands for (0: samples as taken, older buckets as kept)' }),
    columns: z.object({ t: z.array(z.number()).meta({ description: 'ms since the epoch' }), ...columns }),
  })
}
