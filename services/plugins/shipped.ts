import { createHash } from 'node:crypto'
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { PACKAGE_ROOT } from '../../lib/package-root'
import type { Candidate } from './discovery'
import { discover } from './discovery'
import { PLUGIN_API_VERSION, PluginImporter, type PluginStatics, SHIPPED_CACHE, staticsOf } from './plugin-module'

/**
 * The plugins this package ships (plugins/default, and plugins/examples for developers) are
 * discovered when it is built, as oclif's manifest lists its commands: their statics in
 * dist/plugins.manifest.json, their TypeScript transpiled into dist/plugins-cache. A new data
 * directory then needs no thread and no Babel to list or load them (the three defaults took a
 * first command from 0.6 to 1.8 s of CPU). What the build saw is used only while the plugin's
 * fingerprint (its files' paths, sizes and mtimes) is the same: a changed or moved one is
 * discovered as any other plugin.
 */
const MANIFEST = join(PACKAGE_ROOT, 'dist', 'plugins.manifest.json')

/** Where the shipped plugins are found (the `default` and `example` search paths). */
export const shippedPaths = (root = PACKAGE_ROOT) =>
  [
    { source: 'default', dir: join(root, 'plugins', 'default') },
    { source: 'example', dir: join(root, 'plugins', 'examples') },
  ] as const

type Manifest = Record<string, PluginStatics>
let manifest: Manifest | undefined

/**
 * What made the manifest: the plugin interface's version and the code that reads a plugin's
 * statics (its rules, its description), by content: a build that changes that code without the
 * manifest step (`tsc -w`) makes it stale, and the shipped plugins are discovered at run time
 * again; one that only writes the same code again (a full re-emit) does not.
 */
const stamp = () =>
  [
    PLUGIN_API_VERSION,
    ...['plugin-module.js', 'doc-comment.js'].map((file) =>
      createHash('sha256')
        .update(readFileSync(join(__dirname, file)))
        .digest('hex')
        .slice(0, 16),
    ),
  ].join(' ')

/** What the build saw of `candidate`, if it is a shipped plugin whose files have not changed since. */
export function shippedStatics(candidate: Candidate): PluginStatics | undefined {
  if (candidate.source === 'user') return undefined
  manifest ??= readManifest()
  const built = manifest[`${candidate.source}:${candidate.name}`]
  if (built?.candidate?.hash !== candidate.hash || built.candidate.entry !== candidate.entry) return undefined
  return { ...built, candidate }
}

function readManifest(): Manifest {
  try {
    const read = JSON.parse(readFileSync(MANIFEST, 'utf8')) as { stamp?: unknown; plugins?: Manifest }
    if (read.stamp === stamp() && typeof read.plugins === 'object' && read.plugins) return read.plugins
  } catch {
    // Not built with it (or unreadable).
  }
  // Every shipped plugin is discovered at run time.
  return {}
}

/**
 * Imports each shipped plugin in this process (the build's: they are this package's own code)
 * and writes the manifest. A plugin that fails to import is left out, and is discovered (and its
 * error reported) at run time. Returns the names it holds.
 */
export async function writeShippedManifest(modules: {
  sdk: object
  web: () => object
  cli: () => object
}): Promise<string[]> {
  // What an earlier build cached of files since changed or gone would only grow the package.
  rmSync(SHIPPED_CACHE, { recursive: true, force: true })
  const importer = new PluginImporter(modules, SHIPPED_CACHE)
  const built: Manifest = {}
  for (const candidate of discover(shippedPaths()).candidates) {
    try {
      built[`${candidate.source}:${candidate.name}`] = staticsOf(await importer.import(candidate))
    } catch {
      // Left to discovery at run time, which reports it.
    }
  }
  // Whole or not at all: a torn manifest would only be discovered over, but need not be.
  writeFileSync(`${MANIFEST}.tmp`, `${JSON.stringify({ stamp: stamp(), plugins: built }, null, 1)}\n`)
  renameSync(`${MANIFEST}.tmp`, MANIFEST)
  return Object.keys(built)
}
