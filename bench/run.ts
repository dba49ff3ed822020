import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { appendBench } from './append.bench'
import { helpColdStartBench, oneShotActionBench } from './cli.bench'
import { bridgeRoundTripBench, clientColdStartBench, coldReadsBench, settingSetBench } from './daemon.bench'
import { dispatchBench } from './dispatch.bench'
import { type Comparison, formatNs } from './harness'
import { samplingMemoryBench } from './metrics.bench'
import { natsBench, type RoundTrip } from './nats.bench'
import {
  hookPairBench,
  loadBench,
  loopResponsivenessBench,
  pluginCostBench,
  type ThreadMemoryPoint,
  threadMemoryBench,
} from './plugins.bench'
import { replayBench } from './replay.bench'
import { consoleRoundTripBench, serverListBench, worldArchiveBench } from './servers.bench'
import { supervisionMemoryBench } from './supervision.bench'
import { dashboardBench, type LoadResult, serversApiBench, webThroughputBench } from './web.bench'

/**
 * `npm run bench [-- dispatch|append|help|hooks|cost|threads|loop|load|replay|client|reads|bridge|set|backup|list|console|sampling|supervision|nats|web|servers-api|oneshot|dashboard] [--events N] [--world-mb N] [--quick]`:
 * every figure is a ratio against a baseline measured in the same run, because these machines
 * are shared and noisy. Each benchmark runs even when one before it threw; the run exits 1 if
 * any threw or missed its goal.
 *
 * `--quick` (or SM_BENCH_QUICK=1; `npm test` runs it) runs every benchmark end to end at tiny
 * sizes and checks no goal: its figures mean nothing, it proves that no benchmark is broken.
 */
async function main(): Promise<void> {
  const args = process.argv.slice(2)
  const quick = args.includes('--quick') || process.env.SM_BENCH_QUICK === '1'
  const valued = ['--events', '--world-mb']
  const only = args.filter((arg, i) => !arg.startsWith('--') && !valued.includes(args[i - 1] ?? ''))
  const number = (flag: string, full: number, small: number) => {
    const at = args.indexOf(flag)
    return at >= 0 ? Number(args[at + 1]) : quick ? small : full
  }
  const replayEvents = number('--events', 1_000_000, 100)
  const worldMb = number('--world-mb', 500, 2)
  const unknown = only.filter((name) => !(name in BENCHMARKS))
  if (unknown.length > 0) {
    console.error(`unknown benchmark ${unknown.join(', ')}: one of ${Object.keys(BENCHMARKS).join(', ')}`)
    process.exitCode = 2
    return
  }
  const dir = mkdtempSync(join(tmpdir(), 'sm-bench-'))
  const missed: string[] = []
  const crashed: string[] = []
  try {
    for (const [name, bench] of Object.entries(BENCHMARKS)) {
      if (only.length > 0 && !only.includes(name)) continue
      const verdict = (ok: boolean) => {
        if (quick) return 'not checked (quick)'
        if (!ok && !missed.includes(name)) missed.push(name)
        return ok ? 'meets goal' : 'MISSES GOAL'
      }
      const began = performance.now()
      try {
        await bench({ dir, quick, verdict, replayEvents, worldMb })
        if (quick) console.log(`(${name}: ${((performance.now() - began) / 1000).toFixed(1)} s)\n`)
      } catch (error) {
        crashed.push(name)
        console.error(`benchmark '${name}' failed:`, error, '\n')
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  if (missed.length > 0) console.log(`missed goals: ${missed.join(', ')}`)
  if (crashed.length > 0) console.error(`failed benchmarks: ${crashed.join(', ')}`)
  if (missed.length > 0 || crashed.length > 0) process.exitCode = 1
  else if (quick) console.log('every benchmark ran (quick: tiny sizes, goals not checked)')
  // A benchmark that failed half-way may have left a handle open (a manager, a socket): the run
  // is over, so it ends here rather than hanging on it.
  if (crashed.length > 0) process.exit()
}

interface Run {
  readonly dir: string
  readonly quick: boolean
  /** Records a goal's outcome and says it; in quick mode nothing is checked. */
  readonly verdict: (ok: boolean) => string
  readonly replayEvents: number
  readonly worldMb: number
}

/** Every benchmark, in the order they run; `quick` picks the tiny sizes. */
const BENCHMARKS: Record<string, (run: Run) => Promise<void>> = {
  async dispatch({ quick, verdict }) {
    for (const result of await dispatchBench(quick)) {
      print(result)
      console.log(`  goal: at most 1.5x → ${result.ratio.toFixed(2)}x, ${verdict(result.ratio <= 1.5)}\n`)
    }
  },
  async append({ dir, quick, verdict }) {
    const result = await appendBench(dir, quick)
    print(result)
    const throughput = 1 / result.ratio
    console.log(
      `  throughput ratio (ours/bare): ${throughput.toFixed(2)}x; goal at least 0.8x → ${verdict(throughput >= 0.8)}\n`,
    )
  },
  async hooks({ dir, quick, verdict }) {
    const [sync, awaited, threads] = await hookPairBench(dir, quick ? 3 : 50, quick)
    for (const result of [sync, awaited]) {
      print(result as Comparison)
      console.log(
        `  goal: at most 2x → ${(result as Comparison).ratio.toFixed(2)}x, ${verdict((result as Comparison).ratio <= 2)}\n`,
      )
    }
    // Against the same pair in the manager's thread, reported; the goal is its own time.
    const shared = threads as Comparison
    print(shared)
    const ms = shared.candidateNs / 1e6
    console.log(`  goal: a pair in the shared thread in at most 2 ms → ${ms.toFixed(2)} ms, ${verdict(ms <= 2)}\n`)
  },
  async cost({ dir, quick, verdict }) {
    const r = await pluginCostBench(dir, quick ? 3 : 30, quick ? 1 : 5, quick)
    console.log(`a manager process (server-manager start) with ${r.plugins} enabled plugins and with none (medians)`)
    const ratio = r.readyMs.many / r.readyMs.none
    console.log(
      `  ready in ${r.readyMs.many.toFixed(0)} ms against ${r.readyMs.none.toFixed(0)} ms: ${ratio.toFixed(2)}x; goal at most 1.5x → ${verdict(ratio <= 1.5)}`,
    )
    console.log(
      `  RSS ${r.rssMb.many.toFixed(1)} MB against ${r.rssMb.none.toFixed(1)} MB; goal at most 200 MB → ${verdict(r.rssMb.many <= 200)}\n`,
    )
  },
  async threads({ dir, quick, verdict }) {
    const points = await threadMemoryBench(dir, quick ? [1] : [10, 20], quick ? 1 : 5)
    const first = points[0] as ThreadMemoryPoint
    const last = points[points.length - 1] as ThreadMemoryPoint
    console.log('memory of idle plugin threads (RSS of the manager process, median of readings)')
    for (const point of points)
      console.log(`  ${String(point.threads).padStart(3)} threads: ${point.rssMb.toFixed(1)} MB`)
    const perThread = (last.rssMb - first.rssMb) / last.threads
    console.log(
      `  per idle plugin thread: ${perThread.toFixed(1)} MB; goal at most 12 MB → ${verdict(perThread <= 12)}\n`,
    )
  },
  async loop({ dir, quick, verdict }) {
    const r = await loopResponsivenessBench(dir, quick)
    console.log(
      `answers while a plugin hook loops forever in its thread (p99 of ${r.samples.busy} answers against ${r.samples.quiet} with none)`,
    )
    for (const [what, quiet, busy] of [
      ['GET /api/servers', r.quiet.api, r.busy.api],
      ['a bus request', r.quiet.bus, r.busy.bus],
    ] as const)
      console.log(
        `  ${what}: ${busy.toFixed(2)} ms against ${quiet.toFixed(2)} ms quiet, ${(busy / quiet).toFixed(2)}x; goal at most 2x → ${verdict(busy <= 2 * quiet)}`,
      )
    console.log('')
  },
  async load({ dir, quick, verdict }) {
    const result = await loadBench(dir, quick ? 3 : 100, quick ? 1 : 5)
    console.log(
      `load of ${result.plugins} generated TypeScript plugins (plugins:reload: discover, import, validate, bind, onLoad)`,
    )
    console.log(`  cold jiti cache: ${result.coldMsPerPlugin.toFixed(2)} ms per plugin`)
    console.log(`  warm jiti cache: ${result.warmMsPerPlugin.toFixed(2)} ms per plugin`)
    console.log(
      `  baseline, bare require + new of the same code as JS: ${result.bareRequireMsPerPlugin.toFixed(3)} ms per plugin`,
    )
    const ratio = result.warmMsPerPlugin / result.bareRequireMsPerPlugin
    console.log(
      `  warm / bare require: ${ratio.toFixed(1)}x; goal warm at most 10 ms per plugin → ${verdict(result.warmMsPerPlugin <= 10)}\n`,
    )
  },
  async client({ dir, quick, verdict }) {
    const result = await clientColdStartBench(dir, quick)
    print(result)
    console.log(`  goal: at most 1.3x → ${result.ratio.toFixed(2)}x, ${verdict(result.ratio <= 1.3)}\n`)
  },
  async reads({ dir, quick, verdict }) {
    for (const result of await coldReadsBench(dir, quick)) {
      print(result)
      console.log(`  goal: at most 1.5x → ${result.ratio.toFixed(2)}x, ${verdict(result.ratio <= 1.5)}\n`)
    }
  },
  async bridge({ dir, quick, verdict }) {
    const requests = quick ? 50 : 5_000
    const { bridgeMs, localMs } = await bridgeRoundTripBench(dir, requests)
    console.log(`one settings:get request, median of ${requests * 0.9} (after ${requests / 10} warm-up)`)
    console.log(`  in-process bus.request:        ${(localMs * 1000).toFixed(1)} µs`)
    console.log(`  over the bridge (local socket): ${(bridgeMs * 1000).toFixed(1)} µs`)
    console.log(`  goal: bridge median under 0.3 ms → ${verdict(bridgeMs < 0.3)}\n`)
  },
  async set({ dir, quick, verdict }) {
    const result = await settingSetBench(dir, quick ? 2 : 100, quick)
    print(result)
    console.log(`  goal: at most 1.2x → ${result.ratio.toFixed(2)}x, ${verdict(result.ratio <= 1.2)}\n`)
  },
  async replay({ dir, replayEvents }) {
    const result = await replayBench(dir, replayEvents)
    console.log(
      `replay of ${result.events.toLocaleString('en')} setting changes into the settings projection (${result.logged.toLocaleString('en')} events in the log)`,
    )
    console.log(`  append (batches of 10 000): ${Math.round(result.appendPerSecond).toLocaleString('en')} events/s`)
    console.log(`  replay (db rebuild):        ${Math.round(result.replayPerSecond).toLocaleString('en')} events/s`)
    console.log(`  bare scan + JSON.parse:     ${Math.round(result.scanPerSecond).toLocaleString('en')} events/s`)
    console.log(
      `  replay / bare scan: ${(result.replayPerSecond / result.scanPerSecond).toFixed(2)}x of the read floor\n`,
    )
  },
  async backup({ dir, quick, verdict, worldMb }) {
    const rounds = quick ? 1 : 2
    const r = await worldArchiveBench(dir, worldMb, rounds)
    const mb = (r.generated.bytes / 1024 / 1024).toFixed(0)
    console.log(`world backup of a generated ${mb} MiB world (${r.generated.files} files; best of ${rounds} runs each)`)
    console.log(`  zip -r -6 -n .ldb:.log   ${r.zipSame.seconds.toFixed(2)} s`)
    console.log(`  zip -r -6                ${r.zipPlain.seconds.toFixed(2)} s`)
    console.log(`  ours (yazl, stored .ldb) ${r.ours.seconds.toFixed(2)} s, peak RSS ${r.ours.maxRssMb.toFixed(0)} MB`)
    const speed = r.zipSame.seconds / r.ours.seconds
    console.log(`  speed vs zip -n: ${speed.toFixed(2)}x; goal at least 1.0x → ${verdict(speed >= 1)}`)
    console.log(`  speed vs plain zip -6: ${(r.zipPlain.seconds / r.ours.seconds).toFixed(2)}x`)
    console.log(`  peak RSS goal under 150 MB → ${verdict(r.ours.maxRssMb < 150)}`)
    console.log(`restore of that archive`)
    console.log(`  unzip    ${r.unzipX.seconds.toFixed(2)} s`)
    console.log(`  ours     ${r.oursX.seconds.toFixed(2)} s, peak RSS ${r.oursX.maxRssMb.toFixed(0)} MB`)
    const restore = r.unzipX.seconds / r.oursX.seconds
    console.log(`  speed vs unzip: ${restore.toFixed(2)}x; goal at least 0.8x → ${verdict(restore >= 0.8)}\n`)
  },
  async list({ dir, quick, verdict }) {
    const [rounds, servers, running] = quick ? [1, 2, 1] : [9, 50, 10]
    const r = await serverListBench(dir, rounds, servers, running)
    console.log(`server list --json with ${servers} registered servers, no manager (median of ${rounds} CLI runs each)`)
    console.log(`  none running: ${r.idleMs.toFixed(0)} ms`)
    console.log(`  ${running} running:   ${r.busyMs.toFixed(0)} ms`)
    const ratio = r.busyMs / r.idleMs
    console.log(`  ratio: ${ratio.toFixed(2)}x; goal at most 1.5x → ${verdict(ratio <= 1.5)}\n`)
  },
  async console({ dir, quick }) {
    const r = quick ? await consoleRoundTripBench(dir, 2, 1) : await consoleRoundTripBench(dir)
    console.log(`console round trip: send 'list' to the reply reaching a follower (median of ${r.runs})`)
    console.log(`  ${r.medianMs.toFixed(2)} ms\n`)
  },
  async sampling({ dir, quick, verdict }) {
    const mib = (kb: number) => `${(kb / 1024).toFixed(1)} MiB`
    // One process per data directory is the agent alone; more would be supervisors of their own.
    const processes = (n: number) => (n === 1 ? '' : ` (${n} processes)`)
    const runs = quick
      ? [{ stress: true, servers: 1, count: 2, files: 20, readings: 1 }]
      : [
          { stress: false, count: 14 },
          { stress: true, count: 30 },
        ]
    for (const options of runs) {
      const r = await samplingMemoryBench(join(dir, options.stress ? 'stress' : 'default'), options)
      const each = `${r.servers} server${r.servers === 1 ? '' : 's'} under each agent`
      console.log(
        options.stress
          ? `memory sampling adds to the host agent, at its busiest: ${each}, ${r.count} samples a second apart, directories of ${r.files} files walked every second, compacted every 10 s (median resident memory)`
          : `memory sampling adds to the host agent, as set by default: ${each}, ${r.count} samples 5 s apart, directories of ${r.files} files walked every minute (median resident memory)`,
      )
      console.log(`  bare node idling on a timer:  ${mib(r.bareKb)}`)
      console.log(`  host agent, sampling off:     ${mib(r.offKb)}${processes(r.processes.off)}`)
      console.log(`  host agent, sampling on:      ${mib(r.onKb)}${processes(r.processes.on)}`)
      const ratio = r.onKb / r.offKb
      console.log(
        `  added per server: ${Math.round((r.onKb - r.offKb) / r.servers)} KiB; agent on/off ${ratio.toFixed(2)}x; goal at most 1.10x → ${verdict(ratio <= 1.1)}\n`,
      )
    }
  },
  async supervision({ dir, quick, verdict }) {
    const counts = quick ? [1, 2] : [1, 10, 50]
    const readings = quick ? 1 : 10
    const points = await supervisionMemoryBench(
      dir,
      counts,
      quick ? { readings, samples: 1, intervalS: 1 } : { readings, samples: 2 },
    )
    // MB as the goals say it: 10^6 bytes (/proc counts in KiB).
    const mb = (kib: number) => `${((kib * 1024) / 1e6).toFixed(1)} MB`
    const first = points[0]
    const last = points.at(-1)
    if (!first || !last) throw new Error('no reading taken')
    const bare = first.bare
    console.log(
      `supervision memory of running servers: the host agent (and any other supervisor a state file names), fake Bedrock games excluded, default settings (median of ${readings} reading${readings === 1 ? '' : 's'}, /proc/<pid>/smaps_rollup)`,
    )
    console.log(`  bare node idling on a timer:  PSS ${mb(bare.pss)}, USS ${mb(bare.uss)}, RSS ${mb(bare.rss)}`)
    for (const p of points)
      console.log(
        `  ${`${p.servers} server${p.servers === 1 ? '' : 's'} running (${p.processes} process${p.processes === 1 ? '' : 'es'}):`.padEnd(32)}PSS ${mb(p.pss)} (${(p.pss / p.bare.pss).toFixed(2)}x bare), USS ${mb(p.uss)}, RSS ${mb(p.rss)}`,
      )
    const added = last.servers - first.servers
    const per = (field: 'pss' | 'uss' | 'rss') => (last[field] - first[field]) / added
    const perMb = (kib: number) => `${((kib * 1024) / 1e6).toFixed(3)} MB`
    console.log(
      `  added per server, ${first.servers} → ${last.servers}: PSS ${perMb(per('pss'))} (${(per('pss') / bare.pss).toFixed(3)}x a bare node), USS ${perMb(per('uss'))}, RSS ${perMb(per('rss'))}`,
    )
    console.log(`  goal: at most 1 MB PSS per added server → ${verdict((per('pss') * 1024) / 1e6 <= 1)}`)
    console.log(
      `  goal: ${last.servers} servers supervised in under 100 MB PSS → ${mb(last.pss)}, ${verdict((last.pss * 1024) / 1e6 < 100)}\n`,
    )
  },
  async nats({ dir, quick, verdict }) {
    const r = await natsBench(dir, quick ? 4 : 2_000, quick ? 2 : 200)
    const ms = (value: number) => `${value.toFixed(3)} ms`
    const pair = (name: string, t: RoundTrip) => {
      console.log(`  ${name}`)
      console.log(`    over the agent's local socket:     ${ms(t.socketMs)}`)
      console.log(
        `    over NATS, as the manager asks it: ${ms(t.natsMs)} (${(t.natsMs / t.socketMs).toFixed(2)}x the socket)`,
      )
    }
    console.log(
      `a command round trip to a host agent, median of ${r.requests} each (nats-server, manager and agent on loopback)`,
    )
    pair('settings:get (a handler that costs next to nothing: the transport)', r.bare)
    pair('servers:status of its running server (the handler looks at the run on both paths)', r.status)
    console.log(`    asked of the manager's socket, routed to the host over NATS: ${ms(r.routedMs)}`)
    console.log(`  goal: under 1 ms median over NATS (settings:get) → ${verdict(r.bare.natsMs < 1)}`)
    console.log(
      `a console line from the game on the host to a following client, median of ${r.lines} ('list' sent on the host to its reply line)`,
    )
    console.log(`  a follower on the host's own socket:      ${ms(r.consoleHereMs)}`)
    console.log(
      `  a follower on the manager, over NATS:     ${ms(r.consoleManagerMs)} (+${ms(r.consoleManagerMs - r.consoleHereMs)})`,
    )
    console.log(`  goal: under 5 ms median over NATS → ${verdict(r.consoleManagerMs < 5)}\n`)
  },
  async web({ dir, quick, verdict }) {
    const r = await webThroughputBench(dir, 8, quick)
    const line = (name: string, l: LoadResult) =>
      console.log(
        `  ${name.padEnd(46)} ${Math.round(l.rps).toLocaleString('en').padStart(7)} req/s  p50 ${l.p50Ms} ms  p99 ${l.p99Ms} ms${l.errors || l.non2xx ? `  (${l.errors} errors, ${l.non2xx} non-2xx)` : ''}`,
      )
    const clean = (l: LoadResult) => l.errors === 0 && l.non2xx === 0
    // A failed request means the benchmark itself is broken, quick or not.
    for (const [side, l] of Object.entries({
      trigger: r.trigger.ours,
      route: r.route.ours,
      'route in process': r.route.inProcess,
    }))
      if (quick && !clean(l)) throw new Error(`${side}: ${l.errors} errors, ${l.non2xx} non-2xx answers`)
    console.log(
      quick
        ? `HTTP at 50 connections (autocannon in its own process, 50 requests each)`
        : `HTTP at 50 connections (autocannon in its own process, 8 s each, after a 2 s warm-up)`,
    )
    line('bare Koa (own process): parse the JSON body', r.trigger.bare)
    line('ours: trigger_event, JWT, listener, fact', r.trigger.ours)
    const trigger = r.trigger.ours.rps / r.trigger.bare.rps
    console.log(`  (${r.facts.toLocaleString('en')} facts in the log after the trigger runs)`)
    console.log(
      `  trigger_event / bare: ${trigger.toFixed(2)}x; goal at least 0.7x → ${verdict(trigger >= 0.7 && clean(r.trigger.ours))}`,
    )
    line('bare Koa (own process): the JSON handler', r.route.bare)
    line("ours: a plugin's JSON GET route, in its thread", r.route.ours)
    line('ours: the same, plugin in the manager thread', r.route.inProcess)
    const route = r.route.ours.rps / r.route.bare.rps
    const inProcess = r.route.inProcess.rps / r.route.bare.rps
    console.log(
      `  plugin route in its thread / bare: ${route.toFixed(2)}x; goal at least 0.6x → ${verdict(route >= 0.6 && clean(r.route.ours))}`,
    )
    console.log(
      `  plugin route in the manager's thread / bare: ${inProcess.toFixed(2)}x; goal at least 0.8x → ${verdict(inProcess >= 0.8 && clean(r.route.inProcess))}\n`,
    )
  },
  async help({ dir, quick, verdict }) {
    const r = await helpColdStartBench(dir, quick ? 2 : 50, quick)
    print(r.plugins)
    console.log(`  goal: at most 1.2x → ${r.plugins.ratio.toFixed(2)}x, ${verdict(r.plugins.ratio <= 1.2)}\n`)
    print(r.bare)
    console.log(`  goal: at most 1.5x → ${r.bare.ratio.toFixed(2)}x, ${verdict(r.bare.ratio <= 1.5)}\n`)
  },
  async oneshot({ dir, quick, verdict }) {
    const r = await oneShotActionBench(dir, quick ? 2 : 30, quick)
    print(r)
    console.log(`  goal: at most 1.2x → ${r.ratio.toFixed(2)}x, ${verdict(r.ratio <= 1.2)}\n`)
  },
  async 'servers-api'({ dir, quick, verdict }) {
    const r = await serversApiBench(dir, quick ? 3 : 50, 8, quick)
    for (const [side, l] of Object.entries({ bare: r.bare, ours: r.ours }))
      if (l.errors || l.non2xx) throw new Error(`${side}: ${l.errors} errors, ${l.non2xx} non-2xx answers`)
    console.log(
      `GET /api/servers with ${r.servers} registered servers (${r.bytes} bytes), 50 connections (autocannon in its own process${quick ? ', 50 requests each' : ', 8 s each, after a 2 s warm-up'})`,
    )
    for (const [name, l] of [
      ['bare Koa in its own process, the same JSON', r.bare],
      ['ours: JWT, the list from memory, statuses', r.ours],
    ] as const)
      console.log(
        `  ${name.padEnd(46)} ${Math.round(l.rps).toLocaleString('en').padStart(7)} req/s  p50 ${l.p50Ms} ms  p99 ${l.p99Ms} ms`,
      )
    const ratio = r.ours.rps / r.bare.rps
    console.log(
      `  ours / bare: ${ratio.toFixed(2)}x; goal at least 0.5x and p99 under 15 ms → ${verdict(ratio >= 0.5 && r.ours.p99Ms < 15)}\n`,
    )
  },
  async dashboard({ dir, quick }) {
    const [servers, requests, renders] = quick ? [2, 2, 1] : [50, 20, 10]
    const r = await dashboardBench(dir, servers, requests, renders)
    if (r.rows !== servers) throw new Error(`the dashboard drew ${r.rows} server rows of ${servers}`)
    console.log(`the dashboard page with ${servers} registered servers (${r.rows} rows drawn)`)
    console.log(
      `  node http.get: first byte ${r.ttfbMs.toFixed(1)} ms, whole page ${r.bodyMs.toFixed(1)} ms (median of ${requests})`,
    )
    console.log(
      `  Chromium: first byte ${r.browserTtfbMs.toFixed(1)} ms, load event (styles and scripts in) ${r.browserLoadMs.toFixed(1)} ms, resource figures and charts drawn from the API ${r.chartsMs.toFixed(1)} ms (median of ${renders})`,
    )
    console.log(
      `  a live sample of each of the ${servers} servers and of the machine, from the bus to the last row showing it: ${r.liveMs.toFixed(1)} ms (median of ${renders})\n`,
    )
  },
}

function print(result: Comparison): void {
  console.log(`${result.name}`)
  console.log(`  baseline  ${result.baseline.padEnd(36)} ${formatNs(result.baselineNs).padStart(10)} per op`)
  console.log(`  candidate ${result.candidate.padEnd(36)} ${formatNs(result.candidateNs).padStart(10)} per op`)
  console.log(`  time ratio (candidate/baseline): ${result.ratio.toFixed(2)}x`)
}

main().catch((error) => {
  console.error(error)
  process.exitCode = 1
})
