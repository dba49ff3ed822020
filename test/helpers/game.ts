import { mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { isSameProcess } from '../../kernel/process-identity'
import { SupervisorClient } from '../../services/servers/supervisor/client'
import type { RunStatus } from '../../services/servers/supervisor/protocol'
import { RunFiles, type StatusEntry } from '../../services/servers/supervisor/run-files'
import { killAndWait } from './leaks'
import { ROOT } from './run'
import { atRunEnd } from './run-end'
import { tempDir } from './temp-dir'

export const FAKE_BEDROCK = join(ROOT, 'test', 'fixtures', 'fake-bedrock.js')

/** A directory laid out like an unpacked Bedrock server whose `bedrock_server` is the fake (test/fixtures). */
export function fakeBedrockDir(options: { level?: string; env?: Record<string, string> } = {}): string {
  const dir = join(tempDir('sm-bds-'), 'bds')
  mkdirSync(dir, { recursive: true })
  const exported = Object.entries(options.env ?? {})
    .map(([k, v]) => `export ${k}='${v}'\n`)
    .join('')
  writeFileSync(
    join(dir, 'bedrock_server'),
    `#!/bin/sh\n${exported}exec '${process.execPath}' '${FAKE_BEDROCK}' "$@"\n`,
    {
      mode: 0o755,
    },
  )
  writeFileSync(join(dir, 'server.properties'), `server-name=Test\nlevel-name=${options.level ?? 'Bedrock level'}\n`)
  return dir
}

/** A server's state file as its supervisor wrote it. */
export function runState(dataDir: string, name: string) {
  return RunFiles.of(dataDir, name).readState()
}

/**
 * Follows a running server through its supervisor's socket and resolves when a status change
 * (or the status at subscription) matches: event-driven, no polling.
 */
export async function untilStatus(
  dataDir: string,
  name: string,
  matches: (entry: { status: string; willRestart?: boolean }) => boolean,
): Promise<StatusEntry | RunStatus> {
  const client = await SupervisorClient.connect(RunFiles.of(dataDir, name), name)
  if (!client) throw new Error(`no supervisor answers for ${name}`)
  try {
    return await new Promise((resolve, reject) => {
      client.onClose(() => reject(new Error(`the supervisor of ${name} ended first`)))
      client
        .subscribe(
          0,
          () => {},
          (entry) => matches(entry) && resolve(entry),
        )
        .then((now) => matches(now) && resolve(now), reject)
    })
  } finally {
    client.close()
  }
}

/** Resolves when the server's supervisor ends (its socket closes). */
export async function untilSupervisorEnds(dataDir: string, name: string): Promise<void> {
  const client = await SupervisorClient.connect(RunFiles.of(dataDir, name), name)
  if (!client) return
  await new Promise<void>((resolve) => {
    client.onClose(resolve)
    client
      .subscribe(
        0,
        () => {},
        () => {},
      )
      .catch(() => {})
  })
}

/**
 * Kills every game and supervisor recorded under a data directory (identity-checked) and
 * resolves once they are gone: no test leaves one running.
 */
export async function killServers(dataDir: string): Promise<void> {
  let names: string[] = []
  try {
    names = readdirSync(join(dataDir, 'servers'))
  } catch {
    return
  }
  const pids: number[] = []
  for (const name of names) {
    const state = runState(dataDir, name)
    for (const ref of [state?.supervisor, state?.game])
      if (ref && isSameProcess(ref.pid, ref.identity)) pids.push(ref.pid)
  }
  await killAndWait(pids)
}

/**
 * A fresh data directory whose servers are killed when its user is done: made in a test (or a
 * beforeEach), after that test; made in a before() hook, after the top-level describe it ran in
 * (whose tests share the servers); and in any case at the end of the run.
 */
export function gameDataDir(): string {
  const dir = tempDir('sm-game-')
  ;(inTest ? ofTest : ofSuite).push(dir)
  atRunEnd(() => killServers(dir))
  return dir
}

// Root hooks (this module is loaded by a test file, at the top level): a root beforeEach runs
// before any of a test's own hooks, a root afterEach after all of them.
let inTest = false
const ofTest: string[] = []
const ofSuite: string[] = []
beforeEach(() => {
  inTest = true
})
afterEach(async function () {
  inTest = false
  const suiteDirs = ofSuite.splice(0)
  // The first test after a before() hook runs in that hook's describe, or in one nested in it.
  let top = this.currentTest?.parent
  while (top?.parent && !top.parent.root) top = top.parent
  if (suiteDirs.length > 0 && top)
    top.afterAll('kill the game servers of data dirs made in a before() hook', async () => {
      for (const dir of suiteDirs) await killServers(dir)
    })
  for (const dir of ofTest.splice(0)) await killServers(dir)
})

export function alive(pid: number | undefined): boolean {
  if (!pid) return false
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}
