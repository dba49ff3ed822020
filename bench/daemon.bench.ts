import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createManager, type Kernel, silentLogger } from '../manager'
import { BridgeClient } from '../services/bridge/client'
import { type Comparison, compare, median } from './harness'

const ROOT = join(__dirname, '..', '..')
const CLI = join(ROOT, 'bin', 'run.js')

/**
 * `setting get custom.x` as a cold client process of a running manager, against a bare oclif
 * CLI with one command that prints a constant (same @oclif/core, its own package.json), both
 * spawned cold, in alternating rounds.
 */
export async function clientColdStartBench(dir: string, quick = false): Promise<Comparison> {
  const bare = bareOclifCli(join(dir, 'bare-cli'))
  const dataDir = join(dir, 'client-data')
  const manager = await startManagerProcess(dataDir)
  try {
    const runs = coldRuns(dataDir)
    return await compare(
      'cold process: a command answered by the running manager',
      {
        baseline: ['bare oclif CLI, one command, a constant', runs([join(bare, 'run.js'), 'hello'])],
        candidate: ['server-manager setting get custom.x', runs([CLI, 'setting', 'get', 'custom.x'])],
      },
      { rounds: 9, perRound: 3, warmup: 2, quick },
    )
  } finally {
    await stopProcess(manager)
  }
}

/**
 * Reads as cold processes with no manager running (each boots one in-process, issue 36 item 3):
 * `setting get`, `server list` and `events` against the bare oclif CLI, spawned in alternating
 * rounds. One comparison per command.
 */
export async function coldReadsBench(dir: string, quick = false): Promise<Comparison[]> {
  const bare = bareOclifCli(join(dir, 'bare-cli-reads'))
  const dataDir = join(dir, 'reads-data')
  const runs = coldRuns(dataDir)
  const results: Comparison[] = []
  for (const args of [
    ['setting', 'get', 'custom.x'],
    ['server', 'list'],
    ['events', '--limit', '50'],
  ])
    results.push(
      await compare(
        'cold process, no manager running: a read',
        {
          baseline: ['bare oclif CLI, one command, a constant', runs([join(bare, 'run.js'), 'hello'])],
          candidate: [`server-manager ${args.join(' ')}`, runs([CLI, ...args])],
        },
        { rounds: 7, perRound: 2, warmup: 1, quick },
      ),
    )
  return results
}

/** One `settings:get` over the bus bridge (a local socket round trip) and the same request in-process: per-request medians. */
export async function bridgeRoundTripBench(
  dir: string,
  requests = 5_000,
): Promise<{ bridgeMs: number; localMs: number }> {
  // Any free port: the default one may be taken by a manager already running on this machine.
  const kernel = createManager({
    dataDir: join(dir, 'bridge-data'),
    logger: silentLogger,
    daemon: true,
    web: { host: '127.0.0.1', port: 0 },
  })
  await kernel.start()
  await kernel.bus.emit('manager:started', {})
  const client = await BridgeClient.connect(kernel.config.dataDir)
  if (!client) throw new Error('no manager to connect to')
  try {
    const payload = { key: 'plugins.hook_timeout_ms' }
    const time = async (call: () => Promise<unknown>) => {
      const samples: number[] = []
      for (let i = 0; i < requests; i++) {
        const began = process.hrtime.bigint()
        await call()
        samples.push(Number(process.hrtime.bigint() - began) / 1e6)
      }
      return median(samples.slice(requests / 10))
    }
    // Warm both paths, then alternate halves so drift on the machine hits both alike.
    await time(() => client.request('settings:get', payload, 'cli:bench'))
    await time(() => kernel.bus.request('settings:get', payload))
    const bridgeMs = await time(() => client.request('settings:get', payload, 'cli:bench'))
    const localMs = await time(() => kernel.bus.request('settings:get', payload))
    return { bridgeMs, localMs }
  } finally {
    client.close()
    await kernel.stop()
  }
}

/**
 * `settings:set custom.small 1` with 100 custom values of 1 MB each already stored (`stored`),
 * against the same on an empty data directory: per-key storage must make the stored bulk irrelevant.
 */
export async function settingSetBench(dir: string, stored = 100, quick = false): Promise<Comparison> {
  const empty = await started(join(dir, 'set-empty'))
  const full = await started(join(dir, 'set-full'))
  try {
    const mb = 'x'.repeat(1_000_000)
    for (let i = 0; i < stored; i++) await full.bus.request('settings:set', { key: `custom.big${i}`, value: mb })
    let value = 0
    const setter = (kernel: Kernel) => ({
      run: async (n: number) => {
        for (let i = 0; i < n; i++) await kernel.bus.request('settings:set', { key: 'custom.small', value: value++ })
      },
    })
    return await compare(
      `setting set custom.small, ${stored} values of 1 MB stored`,
      { baseline: ['with nothing stored', setter(empty)], candidate: [`with ${stored} MB stored`, setter(full)] },
      { rounds: 9, perRound: 50, warmup: 20, quick },
    )
  } finally {
    await empty.stop()
    await full.stop()
  }
}

async function started(dataDir: string): Promise<Kernel> {
  const kernel = createManager({ dataDir, logger: silentLogger })
  await kernel.start()
  return kernel
}

/**
 * For `dataDir` (custom.x set there first): what runs a command as `n` cold processes one after
 * another, each of which must succeed.
 */
function coldRuns(dataDir: string): (args: string[]) => { run: (n: number) => void } {
  const env = { ...process.env, SM_DATA_DIR: dataDir }
  const ok = spawnSync(process.execPath, [CLI, 'setting', 'set', 'custom.x', '1'], { env })
  if (ok.status !== 0) throw new Error(`setting set failed: ${ok.stderr}`)
  return (args) => ({
    run: (n) => {
      for (let i = 0; i < n; i++) {
        const result = spawnSync(process.execPath, args, { env })
        if (result.status !== 0) throw new Error(`${args.join(' ')} failed: ${result.stderr}`)
      }
    },
  })
}

/** A minimal oclif CLI: its own package.json, one command printing a constant, the project's @oclif/core. */
export function bareOclifCli(dir: string): string {
  const core = JSON.stringify(require.resolve('@oclif/core'))
  mkdirSync(join(dir, 'commands'), { recursive: true })
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'bare', version: '1.0.0', oclif: { bin: 'bare', commands: './commands' } }),
  )
  writeFileSync(
    join(dir, 'commands', 'hello.js'),
    `const { Command } = require(${core})\nclass Hello extends Command { async run() { this.log('42') } }\nmodule.exports = Hello\n`,
  )
  writeFileSync(
    join(dir, 'run.js'),
    `#!/usr/bin/env node\nvoid (async () => { const oclif = require(${core}); await oclif.execute({ dir: __dirname }) })()\n`,
  )
  return dir
}

/** `server-manager start` on any free port (the default one may be taken by a manager already running here). */
export function startManagerProcess(dataDir: string): Promise<ChildProcess> {
  const env = { ...process.env, SM_DATA_DIR: dataDir }
  const port = spawnSync(process.execPath, [CLI, 'setting', 'set', 'web.port', '0'], { env, encoding: 'utf8' })
  if (port.status !== 0) throw new Error(`setting set web.port 0 failed: ${port.stderr}`)
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'start'], { env })
    let out = ''
    child.stderr.on('data', (chunk: Buffer) => {
      out += chunk
    })
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk
      if (/^ready in/m.test(out)) resolve(child)
    })
    child.on('exit', (code) => reject(new Error(`the manager exited with ${code}: ${out}`)))
  })
}

export function stopProcess(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.removeAllListeners('exit')
    child.once('exit', () => resolve())
    child.kill('SIGTERM')
  })
}
