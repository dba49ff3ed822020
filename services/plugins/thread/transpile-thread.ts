/**
 * The entry of the thread that warms jiti's transpile cache before a discovery pass (see
 * warmTranspileCache in transpiler.ts): it transpiles the files it is given, as a plugin's thread
 * would import them, and ends. It runs no plugin code, and loads jiti's Babel once for them all.
 */
import { readFileSync } from 'node:fs'
import { workerData } from 'node:worker_threads'
import { createJiti } from 'jiti'
import { JITI_OPTIONS, TYPESCRIPT } from '../plugin-module'

const { jobs } = workerData as { jobs: readonly { cacheDir: string; files: readonly string[] }[] }
const jitis = new Map<string, ReturnType<typeof createJiti>>()
for (const { cacheDir, files } of jobs) {
  const jiti = jitis.get(cacheDir) ?? createJiti(__filename, { ...JITI_OPTIONS, fsCache: cacheDir })
  jitis.set(cacheDir, jiti)
  for (const filename of files) {
    try {
      // What jiti's import does with a module it transpiles (async: imported, not required), so
      // that the plugin's thread finds it in the cache.
      jiti.transform({ filename, source: readFileSync(filename, 'utf8'), ts: TYPESCRIPT.test(filename), async: true })
    } catch {
      // The plugin's own thread meets the same error, and reports it with its place in the file.
    }
  }
}
