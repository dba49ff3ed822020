/**
 * The plugin web SDK: what `import … from 'server-manager/web'` gives a plugin, so a plugin in
 * the user's data directory needs no packages of its own.
 *
 * ```ts
 * import { PluginBase } from 'server-manager'
 * import { defineRoute, Router, requireAdmin, z } from 'server-manager/web'
 *
 * export default class Hello extends PluginBase {
 *   static version = '1.0.0'
 *   getRouters() {
 *     const router = new Router({ prefix: '/hello' })
 *     router.get('/ping', (ctx) => { ctx.body = { pong: true } })          // signed-in users
 *     defineRoute(router, { method: 'post', path: '/echo', access: 'admin',
 *       body: z.object({ text: z.string() }) }, (_ctx, { body }) => ({ status: 'success', data: body }))
 *     return [router]
 *   }
 * }
 * ```
 */
import type { Context } from 'koa'

export type { Identity, Role } from './services/auth/contract'
export {
  type Access,
  allowPublic,
  currentUser,
  defineRoute,
  type Method,
  type RouteInput,
  Router,
  type RouteSpec,
  requireAdmin,
  requireModerator,
  requireUser,
  type UploadedFile,
  uploadedFiles,
  type WebContext,
  type WebState,
  z,
} from './services/web/route'

type Render = (view: string, locals?: Record<string, unknown>) => Promise<string>

/** Renders templates from the plugin's getTemplatePaths() folders (or `app:<view>`, or `<plugin>:<view>`). */
export interface Templates {
  /** Renders `view` as the response (HTML) and resolves to the HTML. */
  render(ctx: Context | { render?: unknown }, view: string, locals?: Record<string, unknown>): Promise<string>
}

/**
 * The seed's get_templates(): the plugin's templates, with the base layout (`layout('base')`),
 * the blocks `title`, `content`, `head_styles` and `body_scripts`, and `urlFor(mount, path)`.
 * Inside a route `ctx.render(view, locals)` does the same.
 */
export function getTemplates(): Templates {
  return {
    render(ctx, view, locals = {}) {
      const render = (ctx as { render?: Render }).render
      if (typeof render !== 'function') throw new Error('getTemplates().render needs the ctx of a web request')
      return render(view, locals)
    },
  }
}
