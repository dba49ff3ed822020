import { existsSync, lstatSync, readdirSync } from 'node:fs'
import { extname, join } from 'node:path'
import { SmError } from '../../kernel'
import type { PluginSource } from './contract'
import { fingerprint } from './fingerprint'

const EXTENSIONS = ['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs']
const NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/

export interface SearchPath {
  readonly source: PluginSource
  readonly dir: string
}

/** A plugin found on disk, not yet imported. */
export interface Candidate {
  readonly name: string
  readonly source: PluginSource
  /** The module to import: the file, or the package's index. */
  readonly entry: string
  /** The file, or the package folder. */
  readonly root: string
  /** Changes whenever a file of the plugin changes (size and mtime), so unchanged plugins need no import. */
  readonly hash: string
}

export interface Discovery {
  readonly candidates: Candidate[]
  /** Plugins that cannot be loaded: their name, a clash in one search path, a bad link or file. */
  readonly refused: {
    readonly name: string
    readonly root: string
    readonly source: PluginSource
    readonly error: SmError
  }[]
  /** Plugins hidden by one of the same name in an earlier search path (a user plugin overriding a default). */
  readonly shadowed: Candidate[]
}

/**
 * Finds plugins in the search paths, in order: a single file (`greeter.ts`) or a package folder
 * with an index (`greeter/index.ts`). Names starting with `_` or `.` are ignored. The first path
 * wins a name clash; two plugins of one name in one path are both refused (one error).
 */
export function discover(paths: readonly SearchPath[]): Discovery {
  const taken = new Map<string, Candidate>()
  const refused: Discovery['refused'][number][] = []
  const shadowed: Candidate[] = []
  for (const { source, dir } of paths) {
    const local = new Map<string, Candidate[]>()
    for (const found of scan(source, dir)) {
      if ('error' in found) refused.push(found)
      else local.set(found.name, [...(local.get(found.name) ?? []), found])
    }
    for (const [name, twins] of local) {
      const [first, second] = twins
      if (first && second) {
        // Neither wins: which one the user meant is unknowable.
        const error = new SmError('SM_ERR_PLUGIN_DUPLICATE_NAME', {
          plugin: name,
          first: first.root,
          second: second.root,
        })
        refused.push({ name, root: first.root, source, error })
      } else if (first && taken.has(name)) shadowed.push(first)
      else if (first) taken.set(name, first)
    }
  }
  return { candidates: [...taken.values()], refused, shadowed }
}

/**
 * Whether a file is there, as a link too (lstat): an index that links to nothing is still the
 * plugin's, and its fingerprint reports it; one that cannot be looked at counts, for the same.
 */
function present(file: string): boolean {
  try {
    return lstatSync(file, { throwIfNoEntry: false }) !== undefined
  } catch {
    return true
  }
}

function* scan(source: PluginSource, dir: string): Generator<Candidate | Discovery['refused'][number]> {
  if (!existsSync(dir)) return
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (entry.name.startsWith('_') || entry.name.startsWith('.') || entry.name === 'node_modules') continue
    const root = join(dir, entry.name)
    let name: string
    let main: string | undefined
    if (entry.isDirectory()) {
      name = entry.name
      main = EXTENSIONS.map((ext) => join(root, `index${ext}`)).find(present)
      if (!main) continue
    } else {
      const ext = extname(entry.name)
      if (!EXTENSIONS.includes(ext) || entry.name.endsWith('.d.ts')) continue
      name = entry.name.slice(0, -ext.length)
      main = root
    }
    if (!NAME.test(name)) {
      yield { name, root, source, error: new SmError('SM_ERR_PLUGIN_INVALID_NAME', { plugin: name }) }
      continue
    }
    const { hash, bad } = fingerprint(root)
    if (bad) {
      yield { name, root, source, error: new SmError('SM_ERR_PLUGIN_BAD_FILE', { plugin: name, ...bad }) }
      continue
    }
    yield { name, source, entry: main, root, hash }
  }
}
