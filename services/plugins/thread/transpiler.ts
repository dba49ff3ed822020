import { readdirSync } from 'node:fs'
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
  const worker = new Worker(join(__dirname, 'transpile-thread.js'), { workerData: { jobs } })
  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => void worker.terminate(), timeoutMs)
    worker.once('error', () => {})
    worker.once('exit', () => {
      clearTimeout(timer)
      resolve()
    })
  })
}

/** The TypeScript files a plugin's thread may transpile: its entry, and the others of a folder plugin (few: a plugin, not a project). */
function sourcesOf(candidate: Candidate): string[] {
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
