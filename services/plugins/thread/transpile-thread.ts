/**
 * The entry of the thread that fills jiti's transpile cache before discovery passes (see
 * warmTranspileCache in transpiler.ts): for each pass it is sent, it transpiles the files, as a
 * plugin's thread would import them, and answers the pass's id. It runs no plugin code, and
 * loads jiti's Babel once for every pass it serves.
 */
import { readFileSync } from 'node:fs'
import { type MessagePort, parentPort } from 'node:worker_threads'
import { createJiti } from 'jiti'
import { JITI_OPTIONS, TYPESCRIPT } from '../plugin-module'

const port = parentPort as MessagePort
port.on('message', ({ id, jobs }: { id: number; jobs: readonly { cacheDir: string; files: readonly string[] }[] }) => {
  for (const { cacheDir, files } of jobs) {
    const jiti = createJiti(__filename, { ...JITI_OPTIONS, fsCache: cacheDir })
    for (const filename of files) {
      try {
        // What jiti's import does with a module it transpiles (async: imported, not required),
        // so that the plugin's thread finds it in the cache.
        jiti.transform({ filename, source: readFileSync(filename, 'utf8'), ts: TYPESCRIPT.test(filename), async: true })
      } catch {
        // The plugin's own thread meets the same error, and reports it with its place in the file.
      }
    }
  }
  port.postMessage(id)
})
