import { accessSync, constants, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { createJiti } from 'jiti'
import { reasonOf, SmError } from '../../kernel/errors'
import { PACKAGE_ROOT } from '../../lib/package-root'
import type { Candidate } from './discovery'
import { classDescription } from './doc-comment'
import { classHookMethods } from './hook-methods'
import { PluginBase, type PluginClass } from './plugin-base'
import { pluginOnStack } from './process-guard'

/**
 * The version of the plugin interface this build provides (what `engines` ranges are checked
 * against), by semver: 2.0.0 because a failed change now rejects instead of resolving to
 * `{ status: 'error' }` (docs/plugins.md).
 */
export const PLUGIN_API_VERSION = '2.0.0'

/**
 * What a plugin gets for `import … from 'server-manager/manager'`: the embedders' door (the
 * kernel, the services) is not for plugins, which reach the manager through `this.api` only.
 */
const forbiddenManager = new Proxy(
  {},
  {
    get(_target, property) {
      if (typeof property === 'symbol' || property === 'then' || property === '__esModule') return undefined
      const plugin = pluginOnStack(new Error().stack) ?? 'unknown'
      throw new SmError('SM_ERR_PLUGIN_FORBIDDEN', {
        plugin,
        what: `use '${String(property)}' from 'server-manager/manager' (plugins reach the manager through this.api)`,
      })
    },
  },
)

/**
 * What a plugin's module says of itself, validated: everything needed to list it, plan its load
 * and start it in a thread of its own. Plain data, so it can come from a thread that imported it.
 */
export interface PluginStatics {
  readonly candidate: Candidate
  readonly version: string
  readonly author: string
  readonly description: string
  readonly requires: readonly string[]
  readonly enabledByDefault: boolean
  /** Its `static secretSettings` as declared when it is a list of strings; `false` when it is something else (refused at load). */
  readonly secretSettings: readonly string[] | false | undefined
  /** The methods named like a hook that its class defines (hook-methods.ts, classHookMethods). */
  readonly methods: readonly string[]
}

/** A plugin's module, imported in this thread: its statics and its class. */
export interface PluginDefinition extends PluginStatics {
  readonly cls: PluginClass
}

/** A definition without its class: what crosses from the thread that imported it. */
export function staticsOf({ cls: _cls, ...statics }: PluginDefinition): PluginStatics {
  return statics
}

/**
 * What jiti is made with wherever it transpiles plugin code (a plugin's thread, and the thread
 * that warms its cache, thread/transpiler.ts): the cache keeps a file's output whatever options
 * made it, so both must transpile alike.
 */
export const JITI_OPTIONS = { interopDefault: false } as const

/**
 * jiti's cache for the plugins this package ships, filled when it is built (shipped.ts): a new
 * data directory's cache (`cache/jiti`) would transpile them all again.
 */
export const SHIPPED_CACHE = join(PACKAGE_ROOT, 'dist', 'plugins-cache')
const SHIPPED_PLUGINS = join(PACKAGE_ROOT, 'plugins')

/**
 * The transpile cache a plugin's files go through: the package's for this package's own plugins
 * when this user may write it (jiti neither reads nor writes a cache it cannot write: a package
 * installed by root for others), else the data directory's.
 */
export function cacheDirOf(candidate: Candidate, dataCache: string | false): string | false {
  if (dataCache === false || candidate.source === 'user' || !candidate.root.startsWith(`${SHIPPED_PLUGINS}/`))
    return dataCache
  shippedCacheWritable ??= writable(SHIPPED_CACHE)
  return shippedCacheWritable ? SHIPPED_CACHE : dataCache
}

let shippedCacheWritable: boolean | undefined

function writable(dir: string): boolean {
  try {
    accessSync(dir, constants.W_OK)
    return true
  } catch {
    return false
  }
}

/** The files jiti transpiles as TypeScript. */
export const TYPESCRIPT = /\.[cm]?tsx?$/

/**
 * Imports plugin modules (TypeScript or JavaScript, ESM or CJS) with jiti. `server-manager`
 * resolves to this very process's public module, so `instanceof PluginBase` holds for plugins
 * outside the repository too. Node's module cache is bypassed, so a reload runs changed code;
 * jiti's transpile cache (on disk) keeps imports of unchanged files fast.
 */
export class PluginImporter {
  readonly #options: Parameters<typeof createJiti>[1]
  /** jiti with each transpile cache, and without one (false: for when a cache cannot be written): made on first use. */
  readonly #jiti = new Map<string | false, ReturnType<typeof createJiti>>()
  readonly #cacheDir: string | false

  /**
   * `sdk` is what `server-manager` resolves to; `web` and `cli` load `server-manager/web` and
   * `server-manager/cli` on a plugin's first use of them (most plugins use neither).
   */
  constructor(modules: { sdk: object; web?: () => object; cli?: () => object }, cacheDir: string | false) {
    this.#cacheDir = cacheDir
    const options = {
      ...JITI_OPTIONS,
      moduleCache: false,
      virtualModules: {
        'server-manager': modules.sdk,
        'server-manager/manager': forbiddenManager,
        ...(modules.web ? { 'server-manager/web': lazyModule(modules.web) } : {}),
        ...(modules.cli ? { 'server-manager/cli': lazyModule(modules.cli) } : {}),
      },
    }
    this.#options = options
  }

  // jiti is loaded on the first import: a process that imports no plugin (none installed, or
  // a one-shot command whose plugins run in their threads) does not pay its load, about a
  // tenth of a cold command's start.
  #importer(cacheDir: string | false): ReturnType<typeof createJiti> {
    let jiti = this.#jiti.get(cacheDir)
    if (!jiti) {
      const { createJiti } = require('jiti') as typeof import('jiti')
      jiti = createJiti(__filename, { ...this.#options, fsCache: cacheDir })
      this.#jiti.set(cacheDir, jiti)
    }
    return jiti
  }

  async import(candidate: Candidate): Promise<PluginDefinition> {
    const plugin = candidate.name
    let exports: Record<string, unknown>
    try {
      exports = (await this.#importCached(candidate)) as Record<string, unknown>
    } catch (error) {
      const where = locate(error, candidate.root)
      const reason = `${firstLine(reasonOf(error))}${where ? ` (at ${where})` : ''}`
      throw new SmError('SM_ERR_PLUGIN_IMPORT_FAILED', { plugin, reason }, { cause: error })
    }
    const cls = pluginClass(plugin, exports)
    const version = typeof cls.version === 'string' ? cls.version.trim() : ''
    if (!version) throw new SmError('SM_ERR_PLUGIN_INVALID_VERSION', { plugin })
    if (cls.engines !== undefined) checkEngines(plugin, cls.engines)
    const requires = Array.isArray(cls.requires) ? cls.requires.filter((r): r is string => typeof r === 'string') : []
    const description =
      (typeof cls.description === 'string' && cls.description.trim()) ||
      classDescription(candidate.entry, candidate.root, cls.name) ||
      'No description available.'
    return {
      candidate,
      cls,
      version,
      author: typeof cls.author === 'string' && cls.author.trim() ? cls.author.trim() : 'unknown',
      description,
      requires,
      enabledByDefault: candidate.source === 'default' && cls.enabledByDefault === true,
      secretSettings: plainSecretSettings(cls.secretSettings),
      methods: classHookMethods(cls.prototype),
    }
  }

  /**
   * Imports through the transpile cache, and without it when the cache cannot be written (a full
   * disk, a read-only data directory): a cache only saves time, so listing and loading plugins
   * must not need free space.
   */
  async #importCached(candidate: Candidate): Promise<unknown> {
    const { entry } = candidate
    const cacheDir = cacheDirOf(candidate, this.#cacheDir)
    if (!cacheDir) return this.#importer(false).import(entry)
    try {
      // jiti creates its cache folder once; someone may have cleaned it up since.
      mkdirSync(cacheDir, { recursive: true })
      return await this.#importer(cacheDir).import(entry)
    } catch (error) {
      if (!cacheUnwritable(error, cacheDir)) throw error
      return this.#importer(false).import(entry)
    }
  }
}

/**
 * Whether `error` may be the cache folder refusing a write rather than the plugin failing: a
 * write error that names the cache, or none (a write that ran out of space names no file).
 */
function cacheUnwritable(error: unknown, cacheDir: string): boolean {
  const { code, path } = (error ?? {}) as { code?: unknown; path?: unknown }
  return (
    typeof code === 'string' &&
    ['ENOSPC', 'EDQUOT', 'EROFS', 'EACCES', 'EPERM', 'EIO'].includes(code) &&
    (path === undefined || (typeof path === 'string' && (path === cacheDir || path.startsWith(`${cacheDir}/`))))
  )
}

function pluginClass(plugin: string, exports: Record<string, unknown>): PluginClass {
  const isPlugin = (value: unknown): value is PluginClass =>
    typeof value === 'function' && value.prototype instanceof PluginBase
  // CommonJS `module.exports = class extends PluginBase {}`.
  if (isPlugin(exports)) return exports
  if (isPlugin(exports.default)) return exports.default
  const found = Object.values(exports).filter(isPlugin)
  const [only] = found
  if (found.length === 1 && only) return only
  const reason =
    found.length === 0
      ? 'it exports no class that extends PluginBase'
      : `it exports ${found.length} plugin classes and no default`
  throw new SmError('SM_ERR_PLUGIN_NO_CLASS', { plugin, reason })
}

/** An import's own error when it is coded (a syntax error, no class, no version); any other as an import failure. */
export function importFailure(plugin: string, error: unknown): SmError {
  return error instanceof SmError
    ? error
    : new SmError('SM_ERR_PLUGIN_IMPORT_FAILED', { plugin, reason: reasonOf(error) }, { cause: error })
}

function plainSecretSettings(declared: unknown): readonly string[] | false | undefined {
  if (declared === undefined) return undefined
  return Array.isArray(declared) && declared.every((key) => typeof key === 'string') ? [...declared] : false
}

function checkEngines(plugin: string, engines: unknown): void {
  const range = String(engines)
  // semver (20 modules) is loaded only for a plugin that states its engines: not by every plugin's thread.
  const satisfies = require('semver/functions/satisfies') as typeof import('semver/functions/satisfies')
  const validRange = require('semver/ranges/valid') as typeof import('semver/ranges/valid')
  if (typeof engines !== 'string' || validRange(engines) === null || !satisfies(PLUGIN_API_VERSION, engines)) {
    throw new SmError('SM_ERR_PLUGIN_ENGINES_MISMATCH', { plugin, range, api: PLUGIN_API_VERSION })
  }
}

/**
 * Where in the plugin's own files an import failed: `file:line:column`, from a parser's message
 * (a syntax error) or the innermost stack frame inside the plugin (a throwing top level).
 */
function locate(error: unknown, root: string): string | undefined {
  const text = `${(error as Error)?.message ?? ''}\n${(error as Error)?.stack ?? ''}`
  for (const match of text.matchAll(/(\/[^\s():]+):(\d+):(\d+)/g)) {
    if (match[1]?.startsWith(root)) return `${match[1]}:${match[2]}:${match[3]}`
  }
  return undefined
}

function firstLine(text: string): string {
  return (
    text
      .split('\n')
      .find((line) => line.trim() !== '')
      ?.trim() ?? text
  )
}

/**
 * A module object whose exports are loaded on first use. Not on its import: an `await import()`
 * (jiti imports plugin modules so) asks the module for `then`, as of any value a promise resolves
 * to, and the SDKs export none; answered here, a plugin that imports `server-manager/web` but is
 * only being discovered, or never draws a route in this thread, does not load the web SDK (its
 * router, zod: about 140 modules).
 */
function lazyModule(load: () => object): object {
  let loaded: Record<PropertyKey, unknown> | undefined
  const get = () => {
    loaded ??= load() as Record<PropertyKey, unknown>
    return loaded
  }
  return new Proxy(
    {},
    {
      get: (_target, key) => (key === 'then' && loaded === undefined ? undefined : get()[key]),
      has: (_target, key) => key in get(),
      ownKeys: () => Reflect.ownKeys(get()),
      getOwnPropertyDescriptor: (_target, key) => {
        const descriptor = Object.getOwnPropertyDescriptor(get(), key)
        return descriptor && { ...descriptor, configurable: true }
      },
    },
  )
}
