/**
 * A/B timing for noisy shared machines: baseline and candidate run in alternating rounds, each
 * round times a whole batch of operations, and the medians are compared. Only the ratio means
 * something; absolute times are printed for context.
 */
export interface Side {
  /** Runs `n` operations (the batch of one round). */
  run(n: number): Promise<void> | void
}

export interface Comparison {
  readonly name: string
  readonly baseline: string
  readonly candidate: string
  /** Median time per operation (ns). */
  readonly baselineNs: number
  readonly candidateNs: number
  /** candidate time / baseline time. */
  readonly ratio: number
}

export async function compare(
  name: string,
  sides: { baseline: [string, Side]; candidate: [string, Side] },
  options: { rounds?: number; perRound: number; warmup?: number; quick?: boolean },
): Promise<Comparison> {
  // Quick mode proves both sides run end to end (one round of one operation, no warm-up); its figures mean nothing.
  if (options.quick) options = { rounds: 1, perRound: 1, warmup: 0 }
  const rounds = options.rounds ?? 9
  const [baselineName, baseline] = sides.baseline
  const [candidateName, candidate] = sides.candidate
  await baseline.run(options.warmup ?? options.perRound)
  await candidate.run(options.warmup ?? options.perRound)
  const a: number[] = []
  const b: number[] = []
  for (let round = 0; round < rounds; round++) {
    // Alternate which side goes first, so drift on the machine hits both alike.
    const order = round % 2 === 0 ? ([baseline, candidate] as const) : ([candidate, baseline] as const)
    for (const side of order) {
      const began = process.hrtime.bigint()
      await side.run(options.perRound)
      const ns = Number(process.hrtime.bigint() - began) / options.perRound
      ;(side === baseline ? a : b).push(ns)
    }
  }
  const baselineNs = median(a)
  const candidateNs = median(b)
  return {
    name,
    baseline: baselineName,
    candidate: candidateName,
    baselineNs,
    candidateNs,
    ratio: candidateNs / baselineNs,
  }
}

/** The 99th percentile of a sample (its largest below 100 values). */
export function p99(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)] ?? Number.NaN
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((x, y) => x - y)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2
}

export function formatNs(ns: number): string {
  if (ns >= 1e6) return `${(ns / 1e6).toFixed(2)} ms`
  if (ns >= 1e3) return `${(ns / 1e3).toFixed(2)} µs`
  return `${ns.toFixed(0)} ns`
}
