import { existsSync, statSync } from 'node:fs'
import { isAbsolute, posix, resolve } from 'node:path'
import Router, { type Layer } from '@koa/router'
import type { Middleware } from 'koa'
import mount from 'koa-mount'
import { SmError } from '../../kernel/errors'
import type { Contributions, PageData, RouterDescription } from './contract'
import { type Access, accessOf, requireUser, specOf, type WebContext, type WebState } from './route'
import { serveStatic } from './static-files'
import { proxyRouter } from './thread-proxy'

export interface StaticMount {
  readonly urlPath: string
  readonly dir: string
  readonly name: string
  readonly owner: string
}

/** A route as the web server knows it: where it is, who may call it, whose it is. */
export interface KnownRoute {
  readonly owner: string
  readonly router: Router
  readonly layer: Layer
  readonly method: string
  readonly path: string
  readonly access: Access
}

interface Entry {
  readonly plugin: string
  readonly routers: readonly Router[]
  readonly mounts: readonly StaticMount[]
  readonly templateDirs: readonly string[]
  /** Which claim this is (each load of a plugin claims anew): a thread drawing its pages reads them again. */
  readonly claim: number
}

/** The routes of a router with their access: declared (a spec or a guard), the router's own guard, else `fallback`. */
export function routesOf(owner: string, router: Router, fallback: Access): KnownRoute[] {
  const routerLevel = routerAccess(router)
  const routes: KnownRoute[] = []
  for (const layer of router.stack) {
    if (layer.methods.length === 0 || typeof layer.path !== 'string') continue
    const access = declaredAccess(layer) ?? routerLevel ?? fallback
    for (const method of layer.methods)
      if (method !== 'HEAD') routes.push({ owner, router, layer, method, path: layer.path, access })
  }
  return routes
}

/** The access a route declares: its spec's, or the first guard in its own stack. */
function declaredAccess(layer: Layer): Access | undefined {
  return specOf(layer)?.access ?? guardIn(layer)
}

/** The access a router's own guard (`router.use(requireAdmin)`) gives every route of it. */
function routerAccess(router: Router): Access | undefined {
  for (const layer of router.stack) {
    const access = layer.methods.length === 0 ? guardIn(layer) : undefined
    if (access !== undefined) return access
  }
  return undefined
}

function guardIn(layer: Layer): Access | undefined {
  for (const middleware of layer.stack) {
    const access = accessOf(middleware)
    if (access !== undefined) return access
  }
  return undefined
}

/**
 * Plugin routers, static mounts and template folders, swapped in and out while the server
 * runs. Each change builds a new immutable set and replaces the old one in one assignment, so
 * a request sees either the old set or the new one. A contribution that collides with the core
 * or an earlier plugin (router prefix, route, mount path, mount name) is refused, naming both.
 */
export class PluginLayer {
  #entries: readonly Entry[] = []
  #claims = 0
  #dispatch: Middleware<WebState> = (_ctx, next) => next()
  #statics: readonly { urlPath: string; serve: Middleware<WebState> }[] = []
  readonly #core: () => { routers: readonly Router[]; mounts: readonly StaticMount[] }
  readonly #onChange: (plugin: string, templateDirs: readonly string[]) => void
  readonly #page: (ctx: WebContext) => Promise<PageData>

  constructor(
    core: () => { routers: readonly Router[]; mounts: readonly StaticMount[] },
    onChange: (plugin: string, templateDirs: readonly string[]) => void,
    /** What a page a plugin's thread renders sees of the manager. */
    page: (ctx: WebContext) => Promise<PageData>,
  ) {
    this.#core = core
    this.#onChange = onChange
    this.#page = page
  }

  get plugins(): string[] {
    return this.#entries.map((e) => e.plugin)
  }

  /** Every plugin route, in mount order. */
  routes(): KnownRoute[] {
    return this.#entries.flatMap((entry) => entry.routers.flatMap((router) => routesOf(entry.plugin, router, 'user')))
  }

  /**
   * The new set, and the one middleware that runs it: each router in turn, as its plugin. A
   * router with a literal prefix is skipped without matching when the path is outside it, so a
   * request costs the same with one plugin router or fifty.
   */
  #set(entries: readonly Entry[]): void {
    const steps = entries.flatMap((entry) =>
      entry.routers.map((router) => {
        const prefix = router.opts.prefix ?? ''
        const sensitive = router.opts.sensitive === true
        const literal = prefix && !/[:(*]/.test(prefix) ? (sensitive ? prefix : prefix.toLowerCase()) : undefined
        return { plugin: entry.plugin, routes: router.routes() as Middleware<WebState>, literal, sensitive }
      }),
    )
    this.#dispatch = (ctx, next) => {
      const path = ctx.path
      const lower = path.toLowerCase()
      const from = (start: number): Promise<void> => {
        for (let i = start; i < steps.length; i++) {
          const step = steps[i] as (typeof steps)[number]
          if (step.literal !== undefined && !(step.sensitive ? path : lower).startsWith(step.literal)) continue
          ctx.state.plugin = step.plugin
          return step.routes(ctx, () => from(i + 1))
        }
        ctx.state.plugin = undefined
        return next()
      }
      return from(0)
    }
    this.#statics = entries.flatMap((entry) =>
      entry.mounts.map((m) => ({
        urlPath: m.urlPath,
        serve: mount(m.urlPath, serveStatic(m.dir)),
      })),
    )
    this.#entries = entries
  }

  /** Every plugin's template folders (a threaded one's too), by plugin, with the claim they came with. */
  templateFolders(): PageData['templates'] {
    return Object.fromEntries(this.#entries.map((e) => [e.plugin, { dirs: e.templateDirs, claim: e.claim }]))
  }

  mounts(): StaticMount[] {
    return this.#entries.flatMap((e) => e.mounts)
  }

  claim(contributions: Contributions): void {
    const { plugin } = contributions
    const others = this.#entries.filter((e) => e.plugin !== plugin)
    const thread = contributions.thread
    const routers = contributions.routers.map((router, i) => {
      if (thread) return proxyRouter(router as RouterDescription, thread, this.#page)
      if (!(router instanceof Router))
        throw new SmError('SM_ERR_WEB_BAD_CONTRIBUTION', {
          plugin,
          what: `router (getRouters()[${i}])`,
          reason: "it is not a Router from 'server-manager/web' (@koa/router)",
        })
      return router
    })
    this.#checkRouters(plugin, routers, others)
    const mounts = this.#checkMounts(contributions, others)
    const templateDirs = contributions.templatePaths.map((dir, i) => {
      const path = this.#dir(plugin, contributions.root, dir, `template path (getTemplatePaths()[${i}])`)
      return path
    })
    for (const router of routers) guardUndeclared(router)
    const entry: Entry = { plugin, routers, mounts, templateDirs, claim: ++this.#claims }
    this.#set([...others, entry])
    // A threaded plugin draws its pages in its thread; these are for a plugin in this thread that
    // draws one of them by name (`other:view`, after plugins.isolation changed between loads).
    this.#onChange(plugin, templateDirs)
  }

  release(plugin: string): void {
    if (!this.#entries.some((e) => e.plugin === plugin)) return
    this.#set(this.#entries.filter((e) => e.plugin !== plugin))
    this.#onChange(plugin, [])
  }

  /** The middleware that serves plugin mounts and routes (the current set, per request). */
  middleware(): Middleware<WebState> {
    return (ctx, next) => {
      const path = ctx.path
      for (const s of this.#statics)
        if (path === s.urlPath || path.startsWith(`${s.urlPath}/`)) return s.serve(ctx, next)
      return this.#dispatch(ctx, next)
    }
  }

  #checkRouters(plugin: string, routers: readonly Router[], others: readonly Entry[]): void {
    const core = this.#core().routers
    const ownPrefixes = new Set<string>()
    for (const router of routers) {
      const prefix = router.opts.prefix ?? ''
      if (prefix) {
        if (ownPrefixes.has(prefix)) continue
        ownPrefixes.add(prefix)
        const holder = others.find((e) => e.routers.some((r) => (r.opts.prefix ?? '') === prefix))
        if (holder) throw conflict(plugin, holder.plugin, `the router prefix '${prefix}'`)
      }
      for (const route of routesOf(plugin, router, 'user')) {
        const sample = samplePath(route.path)
        for (const coreRouter of core) {
          if (coreRouter.match(sample, route.method).route || matchesLiteral(router, route.method, coreRouter))
            throw conflict(plugin, 'core', `the route ${route.method} ${route.path}`)
        }
        for (const other of others)
          for (const theirs of other.routers)
            if (theirs.match(sample, route.method).route)
              throw conflict(plugin, other.plugin, `the route ${route.method} ${route.path}`)
      }
    }
  }

  #checkMounts(contributions: Contributions, others: readonly Entry[]): StaticMount[] {
    const { plugin } = contributions
    const core = this.#core().mounts
    const taken = [...core, ...others.flatMap((e) => e.mounts)]
    const mine: StaticMount[] = []
    contributions.staticMounts.forEach((value, i) => {
      const what = `static mount (getStaticMounts()[${i}])`
      if (!Array.isArray(value) || value.length < 2)
        throw new SmError('SM_ERR_WEB_BAD_CONTRIBUTION', {
          plugin,
          what,
          reason: 'it is not [urlPath, directory, mountName]',
        })
      const [rawPath, rawDir, rawName] = value as unknown[]
      const urlPath = posix.normalize(`/${String(rawPath ?? '')}`).replace(/\/+$/, '')
      if (!urlPath || urlPath === '/')
        throw new SmError('SM_ERR_WEB_BAD_CONTRIBUTION', { plugin, what, reason: 'its URL path is empty or /' })
      const name = String(rawName ?? urlPath)
      const dir = this.#dir(plugin, contributions.root, rawDir, what)
      for (const other of [...taken, ...mine]) {
        const overlaps =
          other.urlPath === urlPath ||
          urlPath.startsWith(`${other.urlPath}/`) ||
          other.urlPath.startsWith(`${urlPath}/`)
        if (overlaps) throw conflict(plugin, other.owner, `the static mount path '${urlPath}'`)
        if (other.name === name) throw conflict(plugin, other.owner, `the static mount name '${name}'`)
      }
      mine.push({ urlPath, dir, name, owner: plugin })
    })
    return mine
  }

  #dir(plugin: string, root: string, value: unknown, what: string): string {
    if (typeof value !== 'string' || value === '')
      throw new SmError('SM_ERR_WEB_BAD_CONTRIBUTION', { plugin, what, reason: 'it is not a folder path' })
    const dir = isAbsolute(value) ? value : resolve(root, value)
    if (!existsSync(dir) || !statSync(dir).isDirectory())
      throw new SmError('SM_ERR_WEB_BAD_CONTRIBUTION', { plugin, what, reason: `the folder ${dir} does not exist` })
    return dir
  }
}

/**
 * A route that says nothing about who may call it (no spec, no guard of its own or of its
 * router) gets `requireUser` in front: a plugin route is never open by accident.
 */
export function guardUndeclared(router: Router): void {
  if (routerAccess(router) !== undefined) return
  for (const layer of router.stack)
    if (layer.methods.length > 0 && declaredAccess(layer) === undefined) layer.stack.unshift(requireUser)
}

function conflict(plugin: string, other: string, what: string): SmError {
  return new SmError('SM_ERR_WEB_CONFLICT', { plugin, other, what })
}

/** A concrete path for a route pattern (`/x/:id` → `/x/id`), to ask another router whether it would answer. */
function samplePath(pattern: string): string {
  return pattern.replace(/:(\w+)(\([^)]*\))?[?*+]?/g, '$1').replace(/\{([^}]*)\}/g, '$1') || '/'
}

/** Whether one of `router`'s patterns would answer a literal core path (a plugin's `/api/:x` over `/api/status`). */
function matchesLiteral(router: Router, method: string, core: Router): boolean {
  return core.stack.some(
    (layer) =>
      typeof layer.path === 'string' &&
      layer.methods.includes(method) &&
      !layer.path.includes(':') &&
      router.match(layer.path, method).route,
  )
}
