import { readdirSync, realpathSync } from 'node:fs'
import { join } from 'node:path'
import { Worker } from 'node:worker_threads'
import type { Candidate } from '../discovery'
import { cacheDirOf, TYPESCRIPT } from '../plugin-module'

/**
 * Before a discovery pass imports several plugins, each in a thread of its own: their TypeScript
 * transpiled into jiti's cache by one thread, so that Babel (about 0.3 s of CPU and a large heap
 * to load) is loaded once for the pass instead of once in every plugin's thread. A cache only
 * saves time: a file this misses, or a pass that takes longer than `timeoutMs`, is transpiled by
 * the plugin's own thread, as without it. One plugin alone gains nothing and is left to its thread.
 */
export async function warmTranspileCache(
  candidates: readonly Candidate[],
  cacheDir: string | false,
  timeoutMs: number,
): Promise<void> {
  if (!cacheDir || candidates.length < 2) return
  // Each plugin's files into the cache its thread reads (plugin-module.ts, cacheDirOf).
  const jobs = candidates.map((candidate) => ({
    cacheDir: cacheDirOf(candidate, cacheDir),
    files: sourcesOf(candidate),
  }))
  if (jobs.flatMap((job) => job.files).length < 2) return
  let worker: Worker
  try {
    worker = new Worker(join(__dirname, 'transpile-thread.js'), {
      workerData: { jobs },
      // Babel's heap for a plugin's files, bounded as a plugin's own thread is.
      resourceLimits: { maxOldGenerationSizeMb: MAX_HEAP_MB },
    })
  } catch {
    return
  }
  await new Promise<void>((resolve) => {
    // Discovery waits no longer than one import may take, nor than a pass needs.
    const timer = setTimeout(
      () => {
        void worker.terminate()
        resolve()
      },
      Math.min(timeoutMs, MAX_WAIT_MS),
    )
    worker.once('error', () => {})
    worker.once('exit', () => {
      clearTimeout(timer)
      resolve()
    })
  })
}

const MAX_HEAP_MB = 256
const MAX_WAIT_MS = 15_000

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
