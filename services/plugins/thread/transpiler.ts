import { readdirSync, realpathSync } from 'node:fs'
import { join } from 'node:path'
import { Worker } from 'node:worker_threads'
import type { Candidate } from '../discovery'
import { cacheDirOf, TYPESCRIPT } from '../plugin-module'

/**
 * Before a discovery pass imports plugins, each in a thread of its own: their TypeScript
 * transpiled into jiti's cache by one thread, so that Babel (about 0.3 s of CPU and a large heap
 * to load) is loaded once instead of once in every plugin's thread. The thread serves this
 * process's later passes too (a plugin edited and reloaded, another data directory's manager in
 * the same process) until it has had nothing to do for IDLE_MS, and never keeps the process
 * alive. A cache only saves time: a file this misses, or a pass that takes longer than
 * `timeoutMs`, is transpiled by the plugin's own thread, as without it. With no thread running,
 * one file alone gains nothing from starting one and is left to its plugin's thread.
 */
export async function warmTranspileCache(
  candidates: readonly Candidate[],
  cacheDir: string | false,
  timeoutMs: number,
): Promise<void> {
  if (!cacheDir) return
  // Each plugin's files into the cache its thread reads (plugin-module.ts, cacheDirOf).
  const jobs = candidates.flatMap((candidate): Job[] => {
    const dir = cacheDirOf(candidate, cacheDir)
    const files = sourcesOf(candidate)
    return dir && files.length > 0 ? [{ cacheDir: dir, files }] : []
  })
  const files = jobs.reduce((sum, job) => sum + job.files.length, 0)
  if (files === 0 || (files < 2 && !running)) return
  try {
    running ??= new Transpiler()
  } catch {
    // No thread to be had (the process's thread limit, its memory): each plugin's thread
    // transpiles its own files, as without the cache.
    return
  }
  await running.run(jobs, Math.min(timeoutMs, MAX_WAIT_MS))
}

/** Ends this process's transpiling thread now, if one runs (an embedder that wants its memory back; tests). */
export function stopTranspiler(): Promise<void> {
  return running?.end() ?? Promise.resolve()
}

interface Job {
  readonly cacheDir: string
  readonly files: readonly string[]
}

/** The thread that transpiles, and the passes waiting on it. */
class Transpiler {
  readonly #worker: Worker
  readonly #waiting = new Map<number, () => void>()
  #next = 1
  #idle: NodeJS.Timeout | undefined

  constructor() {
    this.#worker = new Worker(join(__dirname, 'transpile-thread.js'), {
      // Babel's heap for the plugins' files, bounded as a plugin's own thread is.
      resourceLimits: { maxOldGenerationSizeMb: MAX_HEAP_MB },
    })
    this.#worker.on('message', (id: number) => this.#settle(id))
    // Out of its heap, or any other end: the waiting passes go on, their plugins' threads transpile.
    this.#worker.on('error', () => {})
    this.#worker.on('exit', () => void this.end())
    // After its listeners, which would hold it again: it never keeps the process alive.
    this.#worker.unref()
  }

  run(jobs: readonly Job[], timeoutMs: number): Promise<void> {
    clearTimeout(this.#idle)
    const id = this.#next++
    return new Promise<void>((resolve) => {
      // Discovery waits no longer than one import may take, nor than a pass needs: a thread that
      // takes longer is ended, and the next pass starts another.
      const timer = setTimeout(() => void this.end(), timeoutMs)
      this.#waiting.set(id, () => {
        clearTimeout(timer)
        resolve()
      })
      this.#worker.postMessage({ id, jobs })
    })
  }

  #settle(id: number): void {
    this.#waiting.get(id)?.()
    this.#waiting.delete(id)
    if (this.#waiting.size > 0) return
    this.#idle = setTimeout(() => void this.end(), IDLE_MS)
    this.#idle.unref()
  }

  async end(): Promise<void> {
    if (running === this) running = undefined
    clearTimeout(this.#idle)
    for (const done of this.#waiting.values()) done()
    this.#waiting.clear()
    await this.#worker.terminate()
  }
}

/** This process's transpiling thread, while it runs. */
let running: Transpiler | undefined

const MAX_HEAP_MB = 256
const MAX_WAIT_MS = 15_000
/** How long the thread (and the Babel in it) stays after its last pass. */
const IDLE_MS = 30_000

/** The TypeScript files a plugin's thread may transpile: its entry, and the others of a folder plugin (few: a plugin, not a project). */
function sourcesOf(candidate: Candidate): string[] {
  // jiti names a cached file by the path it imports it by: the entry as the plugin's thread asks
  // for it, the modules it imports by their real path (Node's resolution follows links).
  return filesOf(candidate).flatMap((file) => {
    try {
      return [file === candidate.entry ? file : realpathSync(file)]
    } catch {
      return []
    }
  })
}

function filesOf(candidate: Candidate): string[] {
  if (candidate.entry === candidate.root) return TYPESCRIPT.test(candidate.entry) ? [candidate.entry] : []
  const files: string[] = []
  const walk = (dir: string, depth: number) => {
    for (const entry of safeList(dir)) {
      if (entry.name === 'node_modules' || entry.name.startsWith('.') || files.length >= MAX_FILES) continue
      const path = join(dir, entry.name)
      if (entry.isDirectory() && depth < 4) walk(path, depth + 1)
      else if (entry.isFile() && TYPESCRIPT.test(entry.name) && !entry.name.endsWith('.d.ts')) files.push(path)
    }
  }
  walk(candidate.root, 0)
  return files
}

const MAX_FILES = 50

function safeList(dir: string) {
  try {
    return readdirSync(dir, { withFileTypes: true })
  } catch {
    return []
  }
}
