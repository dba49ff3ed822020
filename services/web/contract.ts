import { z } from 'zod'
import { type CommandsOf, command, defineCommands, empty } from '../../kernel/contract-catalogue'
import { createToken } from '../../kernel/token'
import type { Identity, Role, ServerRight } from '../auth/contract'

/** What a plugin hands the web server (its extension methods' results). */
export interface Contributions {
  readonly plugin: string
  /** The plugin's folder, for relative template and static paths. */
  readonly root: string
  readonly routers: readonly unknown[]
  readonly templatePaths: readonly unknown[]
  readonly staticMounts: readonly unknown[]
  /** The plugin runs in a thread of its own: `routers` are descriptions, and requests are handed to it. */
  readonly thread?: ThreadRoutes
}

/**
 * Where plugins' web contributions go live, a capability the web service registers (routers and
 * template folders are code, never a message): refused, naming both, on a conflict.
 */
export interface WebContributions {
  claim(contributions: Contributions): void
  /** A plugin's contributions go away (it was disabled, reloaded or unloaded). */
  release(plugin: string): void
}

export const WEB_CONTRIBUTIONS = createToken<WebContributions>('web:contributions')

/**
 * A plugin router as its thread describes it (docs/architecture.md, "Plugins in threads"): the
 * manager serves a router of the same prefix and routes, each behind its access guard, whose
 * handler hands the request to the thread.
 */
export interface RouterDescription {
  readonly prefix: string
  readonly sensitive: boolean
  readonly strict: boolean
  readonly routes: readonly RouteDescription[]
}

export interface RouteDescription {
  readonly path: string
  readonly methods: readonly string[]
  readonly access: 'public' | 'user' | 'moderator' | 'admin'
  readonly name?: string
  /** Its spec (defineRoute), with JSON Schemas for its zod schemas, for the API document and the native pages. */
  readonly spec?: RouteSpecData
}

/** The parts of a route's spec that are zod schemas. */
export const ROUTE_SCHEMAS = ['params', 'query', 'body', 'response'] as const

/**
 * A route's spec as data, for crossing to another thread (route.ts's RouteSpec, field for field,
 * its zod schemas as JSON Schemas; thread-routes.ts's compiler check keeps the two in step).
 */
export type RouteSpecData = {
  readonly method: 'get' | 'post' | 'put' | 'patch' | 'delete'
  readonly path: string
  readonly name?: string
  readonly summary?: string
  readonly description?: string
  readonly tags?: readonly string[]
  readonly access: Role | 'public'
  readonly right?: ServerRight
  readonly serverParam?: string
  readonly session?: boolean
  readonly uploads?: Readonly<Record<string, string>>
  readonly status?: number
  readonly produces?: string
  readonly errors?: Readonly<Record<number, string>>
  readonly redirect?: string
  readonly paramMax?: number | Readonly<Record<string, number>>
} & { readonly [K in (typeof ROUTE_SCHEMAS)[number]]?: z.core.JSONSchema.JSONSchema }

/** A request as the manager hands it to a plugin's thread, once its route's guard has passed and its body is read. */
export interface ForwardedRequest {
  readonly method: string
  /** The path and query, as received. */
  readonly url: string
  readonly headers: Readonly<Record<string, string | string[] | undefined>>
  readonly body: unknown
  readonly files: Readonly<Record<string, { filename: string; mimeType: string; size: number; path: string }>>
  readonly user?: Identity
  /** Why a presented token was refused (for a public route's currentUser), as a coded error. */
  readonly authError?: { code: string; message: string; status: number; exitCode: number; params?: unknown }
  readonly ip: string
  readonly secure: boolean
}

/** A plugin thread's answer: the body whole, or `streamed` (its chunks follow). */
export interface ForwardedResponse {
  readonly status: number
  readonly headers: Readonly<Record<string, string | string[] | number>>
  readonly body?: string | Uint8Array
  readonly streamed?: boolean
  /** No route of the plugin answered (its middleware passed the request on). */
  readonly unmatched?: boolean
}

/** Runs one handed-over request in a plugin's thread: the answer whole, or the stream of its body. */
export type RouteRunner = (
  request: ForwardedRequest,
  page: () => Promise<PageData>,
) => Promise<{ response: ForwardedResponse; stream?: import('node:stream').Readable }>

/** What the web service runs in a plugin's thread (services/web/thread-routes.ts), handed over by the thread's composition root. */
export interface ThreadWeb {
  describeRouters(plugin: string, routers: readonly unknown[]): RouterDescription[]
  routeRunner(
    plugin: string,
    routers: readonly unknown[],
    options: { root: string; templatePaths: readonly unknown[]; cacheTemplates: boolean },
  ): RouteRunner
}

/** How the manager reaches a plugin's routes in its thread. */
export interface ThreadRoutes {
  forward(
    request: ForwardedRequest,
    page: () => Promise<PageData>,
  ): Promise<{ response: ForwardedResponse; stream?: import('node:stream').Readable }>
}

/** What a page rendered in a plugin's thread sees besides its own locals (the manager's part of them). */
export interface PageData {
  readonly user?: Readonly<Record<string, unknown>>
  /** The role whose reach the user has on what names no server (held to server grants: `user`). */
  readonly reach?: Role
  readonly csrf: string
  readonly path: string
  readonly version: string
  readonly pluginPages: readonly unknown[]
  /** The static mounts by name, for `urlFor`. */
  readonly mounts: Readonly<Record<string, string>>
  /**
   * Every plugin's template folders, by plugin, for a page of another plugin (`other:view`), with
   * the claim of the load they came with (a new one: its templates may have changed).
   */
  readonly templates: Readonly<Record<string, { readonly dirs: readonly string[]; readonly claim: number }>>
}

const webStatus = z.object({
  listening: z.boolean(),
  url: z.string().optional(),
  /** Plugins whose routes, mounts or templates are in. */
  plugins: z.array(z.string()).readonly(),
  routes: z.number(),
  streamClients: z.number(),
  since: z.string(),
})
export type WebStatus = Readonly<z.output<typeof webStatus>>

export const webCommands = defineCommands('web', {
  'web:status': command(empty, webStatus),
})

declare module '../../kernel/maps' {
  interface CommandMap extends CommandsOf<typeof webCommands> {}
}
