import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { alive } from './game'
import { run } from './run'

/** The longest an install may take (a cold one took 18 s here, on CI it downloads about 60 MB). */
const INSTALL_TIMEOUT_MS = 5 * 60_000
/** Written last into an install: a directory without it is not one. */
const COMPLETE = 'installed.txt'

/** Packages an optional test can use (their `node_modules`), or why it cannot have them. */
export type CachedPackages = { readonly modules: string } | { readonly unavailable: string }

/**
 * npm packages for an optional test, installed once into a cache outside the repository and
 * outside the run's temp dirs (`~/.cache/server-manager-tests/<name>/<specs>`), so the
 * repository's own dependencies never change and later runs with the same exact versions reuse
 * them without asking npm. An install goes to a directory of its own and is renamed into place
 * when complete: runs side by side never see half of one. Resolves with why the packages cannot
 * be had (npm missing, offline, a failed install) for the test to skip, saying so.
 */
export async function cachedPackages(name: string, specs: readonly string[]): Promise<CachedPackages> {
  const root = join(homedir(), '.cache', 'server-manager-tests', name)
  const dir = join(root, specs.join('+').replace(/[^\w@.+-]/g, '_'))
  const modules = join(dir, 'node_modules')
  if (existsSync(join(dir, COMPLETE))) return { modules }
  try {
    mkdirSync(root, { recursive: true })
    removeAbandoned(root)
    const partial = `${dir}.partial-${process.pid}`
    rmSync(partial, { recursive: true, force: true })
    mkdirSync(partial)
    const began = Date.now()
    const failed = await install(partial, specs)
    if (failed) {
      rmSync(partial, { recursive: true, force: true })
      return { unavailable: failed }
    }
    writeFileSync(join(partial, COMPLETE), `${specs.join('\n')}\n`)
    try {
      renameSync(partial, dir)
    } catch (error) {
      // Another run finished first (its install is complete and may be in use: it stays).
      rmSync(partial, { recursive: true, force: true })
      if (!existsSync(join(dir, COMPLETE))) throw error
    }
    // Said in the run's output: what a cold cache costs a run (CI starts with one).
    console.log(`      (installed ${specs.join(' ')} into ${dir} in ${Math.round((Date.now() - began) / 1000)} s)`)
    return { modules }
  } catch (error) {
    return { unavailable: `the package cache ${root} cannot be written: ${(error as Error).message}` }
  }
}

/** Runs npm; resolves with why it failed, or undefined. */
async function install(prefix: string, specs: readonly string[]): Promise<string | undefined> {
  const args = ['install', '--prefix', prefix, '--no-audit', '--no-fund', '--no-save', '--ignore-scripts']
  // One retry, soon: offline, npm's default retries take over a minute before it gives up.
  args.push('--fetch-retries=1', '--fetch-retry-mintimeout=2000', '--fetch-retry-maxtimeout=5000', ...specs)
  try {
    const r = await run('npm', args, { cwd: prefix, timeoutMs: INSTALL_TIMEOUT_MS })
    if (r.code === 0) return undefined
    if (r.signal) return `npm install ${specs.join(' ')} took longer than ${INSTALL_TIMEOUT_MS / 60_000} minutes`
    const reason = r.stderr
      .split('\n')
      .filter((line) => /^npm (error|ERR!)/.test(line))
      .map((line) => line.replace(/^npm (error|ERR!) ?/, '').trim())
      .find((line) => line && !/^(code|errno|syscall)\b/.test(line))
    return `npm install ${specs.join(' ')} exited ${r.code}: ${reason ?? 'no message'}`
  } catch (error) {
    return `npm could not be run: ${(error as Error).message}`
  }
}

/** Removes the partial installs of runs that died during one (their PID is gone). */
function removeAbandoned(root: string): void {
  for (const entry of readdirSync(root)) {
    const pid = Number(/\.partial-(\d+)$/.exec(entry)?.[1])
    if (pid && !alive(pid)) rmSync(join(root, entry), { recursive: true, force: true })
  }
}
