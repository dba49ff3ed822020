import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { appendBench } from './append.bench'
import { helpColdStartBench } from './cli.bench'
import { bridgeRoundTripBench, clientColdStartBench, settingSetBench } from './daemon.bench'
import { dispatchBench } from './dispatch.bench'
import { type Comparison, formatNs } from './harness'
import { hookPairBench, loadBench } from './plugins.bench'
import { replayBench } from './replay.bench'
import { consoleRoundTripBench, serverListBench, worldArchiveBench } from './servers.bench'
import { dashboardBench, type LoadResult, webThroughputBench } from './web.bench'

/**
 * `npm run bench [-- dispatch|append|help|hooks|load|replay|client|bridge|set|backup|list|console|web|dashboard] [--events N] [--world-mb N]`: every figure is a ratio against a
 * baseline measured in the same run, because these machines are shared and noisy.
 */
async function main(): Promise<void> {
  const args = process.argv.slice(2)
  const only = args.filter((arg) => !arg.startsWith('--') && !/^\d+$/.test(arg))
  const eventsFlag = args.indexOf('--events')
  const replayEvents = eventsFlag >= 0 ? Number(args[eventsFlag + 1]) : 1_000_000
  const worldFlag = args.indexOf('--world-mb')
  const worldMb = worldFlag >= 0 ? Number(args[worldFlag + 1]) : 500
  const wanted = (name: string) => only.length === 0 || only.includes(name)
  const dir = mkdtempSync(join(tmpdir(), 'sm-bench-'))
  let failed = false
  const verdict = (ok: boolean) => {
    failed ||= !ok
    return ok ? 'meets goal' : 'MISSES GOAL'
  }
  try {
    if (wanted('dispatch')) {
      for (const result of await dispatchBench()) {
        print(result)
        console.log(`  goal: at most 1.5x → ${result.ratio.toFixed(2)}x, ${verdict(result.ratio <= 1.5)}\n`)
      }
    }
    if (wanted('append')) {
      const result = await appendBench(dir)
      print(result)
      const throughput = 1 / result.ratio
      console.log(
        `  throughput ratio (ours/bare): ${throughput.toFixed(2)}x; goal at least 0.8x → ${verdict(throughput >= 0.8)}\n`,
      )
    }
    if (wanted('hooks')) {
      for (const result of await hookPairBench(dir)) {
        print(result)
        console.log(`  goal: at most 2x → ${result.ratio.toFixed(2)}x, ${verdict(result.ratio <= 2)}\n`)
      }
    }
    if (wanted('load')) {
      const result = await loadBench(dir)
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
        `  warm / bare require: ${ratio.toFixed(1)}x; goal warm at most 1 ms per plugin → ${verdict(result.warmMsPerPlugin <= 1)}\n`,
      )
    }
    if (wanted('client')) {
      const result = await clientColdStartBench(dir)
      print(result)
      console.log(`  goal: at most 1.3x → ${result.ratio.toFixed(2)}x, ${verdict(result.ratio <= 1.3)}\n`)
    }
    if (wanted('bridge')) {
      const { bridgeMs, localMs } = await bridgeRoundTripBench(dir)
      console.log('one settings:get request, median of 4 500 (after 500 warm-up)')
      console.log(`  in-process bus.request:        ${(localMs * 1000).toFixed(1)} µs`)
      console.log(`  over the bridge (local socket): ${(bridgeMs * 1000).toFixed(1)} µs`)
      console.log(`  goal: bridge median under 0.3 ms → ${verdict(bridgeMs < 0.3)}\n`)
    }
    if (wanted('set')) {
      const result = await settingSetBench(dir)
      print(result)
      console.log(`  goal: at most 1.2x → ${result.ratio.toFixed(2)}x, ${verdict(result.ratio <= 1.2)}\n`)
    }
    if (wanted('replay')) {
      const result = await replayBench(dir, replayEvents)
      console.log(`replay of ${result.events.toLocaleString('en')} setting changes into the settings projection`)
      console.log(`  append (batches of 10 000): ${Math.round(result.appendPerSecond).toLocaleString('en')} events/s`)
      console.log(`  replay (db rebuild):        ${Math.round(result.replayPerSecond).toLocaleString('en')} events/s`)
      console.log(`  bare scan + JSON.parse:     ${Math.round(result.scanPerSecond).toLocaleString('en')} events/s`)
      console.log(
        `  replay / bare scan: ${(result.replayPerSecond / result.scanPerSecond).toFixed(2)}x of the read floor\n`,
      )
    }
    if (wanted('backup')) {
      const r = await worldArchiveBench(dir, worldMb)
      const mb = (r.generated.bytes / 1024 / 1024).toFixed(0)
      console.log(`world backup of a generated ${mb} MiB world (${r.generated.files} files; best of 2 runs each)`)
      console.log(`  zip -r -6 -n .ldb:.log   ${r.zipSame.seconds.toFixed(2)} s`)
      console.log(`  zip -r -6                ${r.zipPlain.seconds.toFixed(2)} s`)
      console.log(
        `  ours (yazl, stored .ldb) ${r.ours.seconds.toFixed(2)} s, peak RSS ${r.ours.maxRssMb.toFixed(0)} MB`,
      )
      const speed = r.zipSame.seconds / r.ours.seconds
      console.log(`  speed vs zip -n: ${speed.toFixed(2)}x; goal at least 1.0x → ${verdict(speed >= 1)}`)
      console.log(`  speed vs plain zip -6: ${(r.zipPlain.seconds / r.ours.seconds).toFixed(2)}x`)
      console.log(`  peak RSS goal under 150 MB → ${verdict(r.ours.maxRssMb < 150)}`)
      console.log(`restore of that archive`)
      console.log(`  unzip    ${r.unzipX.seconds.toFixed(2)} s`)
      console.log(`  ours     ${r.oursX.seconds.toFixed(2)} s, peak RSS ${r.oursX.maxRssMb.toFixed(0)} MB`)
      const restore = r.unzipX.seconds / r.oursX.seconds
      console.log(`  speed vs unzip: ${restore.toFixed(2)}x; goal at least 0.8x → ${verdict(restore >= 0.8)}\n`)
    }
    if (wanted('list')) {
      const r = await serverListBench(dir)
      console.log('server list --json with 50 registered servers, no manager (median of 9 CLI runs each)')
      console.log(`  none running: ${r.idleMs.toFixed(0)} ms`)
      console.log(`  10 running:   ${r.busyMs.toFixed(0)} ms`)
      const ratio = r.busyMs / r.idleMs
      console.log(`  ratio: ${ratio.toFixed(2)}x; goal at most 1.5x → ${verdict(ratio <= 1.5)}\n`)
    }
    if (wanted('console')) {
      const r = await consoleRoundTripBench(dir)
      console.log(`console round trip: send 'list' to the reply reaching a follower (median of ${r.runs})`)
      console.log(`  ${r.medianMs.toFixed(2)} ms\n`)
    }
    if (wanted('web')) {
      const r = await webThroughputBench(dir)
      const line = (name: string, l: LoadResult) =>
        console.log(
          `  ${name.padEnd(46)} ${Math.round(l.rps).toLocaleString('en').padStart(7)} req/s  p50 ${l.p50Ms} ms  p99 ${l.p99Ms} ms${l.errors || l.non2xx ? `  (${l.errors} errors, ${l.non2xx} non-2xx)` : ''}`,
        )
      console.log(`HTTP at 50 connections (autocannon in its own process, 8 s each, after a 2 s warm-up)`)
      line('bare Koa + router: parse the JSON body', r.trigger.bare)
      line('ours: trigger_event, JWT, listener, fact', r.trigger.ours)
      const trigger = r.trigger.ours.rps / r.trigger.bare.rps
      const clean = (l: LoadResult) => l.errors === 0 && l.non2xx === 0
      console.log(`  (${r.facts.toLocaleString('en')} facts in the log after the trigger runs)`)
      console.log(
        `  trigger_event / bare: ${trigger.toFixed(2)}x; goal at least 0.7x → ${verdict(trigger >= 0.7 && clean(r.trigger.ours))}`,
      )
      line('bare Koa + router: the JSON handler', r.route.bare)
      line("ours: a plugin's JSON GET route, signed in", r.route.ours)
      const route = r.route.ours.rps / r.route.bare.rps
      console.log(
        `  plugin route / bare: ${route.toFixed(2)}x; goal at least 0.8x → ${verdict(route >= 0.8 && clean(r.route.ours))}\n`,
      )
    }
    if (wanted('help')) {
      const r = await helpColdStartBench(dir)
      print(r.plugins)
      console.log(`  goal: at most 1.2x → ${r.plugins.ratio.toFixed(2)}x, ${verdict(r.plugins.ratio <= 1.2)}\n`)
      print(r.bare)
      console.log(`  goal: at most 1.5x → ${r.bare.ratio.toFixed(2)}x, ${verdict(r.bare.ratio <= 1.5)}\n`)
    }
    if (wanted('dashboard')) {
      const r = await dashboardBench(dir)
      console.log(`the dashboard page with 50 registered servers (${r.rows} rows drawn)`)
      console.log(
        `  node http.get: first byte ${r.ttfbMs.toFixed(1)} ms, whole page ${r.bodyMs.toFixed(1)} ms (median of 20)`,
      )
      console.log(
        `  Chromium: first byte ${r.browserTtfbMs.toFixed(1)} ms, load event (styles and scripts in) ${r.browserLoadMs.toFixed(1)} ms (median of 10)\n`,
      )
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  if (failed) process.exitCode = 1
}

function print(result: Comparison): void {
  console.log(`${result.name}`)
  console.log(`  baseline  ${result.baseline.padEnd(36)} ${formatNs(result.baselineNs).padStart(10)} per op`)
  console.log(`  candidate ${result.candidate.padEnd(36)} ${formatNs(result.candidateNs).padStart(10)} per op`)
  console.log(`  time ratio (candidate/baseline): ${result.ratio.toFixed(2)}x`)
}

void main()
