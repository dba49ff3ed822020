import { existsSync } from 'node:fs'
import { join } from 'node:path'
import ejs from 'ejs'
import { SmError } from '../../kernel/errors'

/** Whose view `view` is: `plugin:view`, else the route's own plugin's (`plugin`), else the app's. */
export function viewName(view: string, plugin?: string): { namespace: string; name: string } {
  const cut = view.indexOf(':')
  return cut > 0
    ? { namespace: view.slice(0, cut), name: view.slice(cut + 1) }
    : { namespace: plugin ?? 'app', name: view }
}

/** The app's own views (the base layout, partials), in the package (dist/services/web → services/web/views). */
export const APP_VIEWS = join(__dirname, '..', '..', '..', 'services', 'web', 'views')

const MARK = '\u0000@@block:'
const END = '@@\u0000'
const BLOCKS = ['title', 'head_styles', 'body_scripts'] as const

type Render = (view: string, locals?: Record<string, unknown>) => Promise<string>

/**
 * EJS with layouts and blocks (EJS has neither): a page calls `layout('base')`, sets short
 * blocks with `block('title', 'Hello')` and long ones with `contentFor('head_styles')` … up to
 * the next `contentFor`; what is not in a named block is the `content`. The layout is then
 * rendered with `title`, `content`, `head_styles` and `body_scripts`. Includes and layouts are
 * looked up in the page's own folders first, then the app's.
 */
function layoutEngine(dirs: readonly string[], cache: boolean) {
  const find = (name: string): string | undefined => {
    const file = name.endsWith('.ejs') ? name : `${name}.ejs`
    return dirs.map((dir) => join(dir, file)).find((path) => existsSync(path))
  }
  return {
    ejs: async (file: string, locals: Record<string, unknown>): Promise<string> => {
      let layout: string | undefined
      const blocks: Record<string, string> = {}
      const helpers = {
        layout: (name: string) => {
          layout = name
          return ''
        },
        block: (name: string, html: unknown) => {
          blocks[name] = name === 'title' ? String(html) : (blocks[name] ?? '') + String(html)
          return ''
        },
        contentFor: (name: string) => `${MARK}${name}${END}`,
      }
      const options = { views: [...dirs], cache, filename: file, async: false }
      const html: string = await ejs.renderFile(file, { ...locals, ...helpers }, options)
      const parts = html.split(MARK)
      let content = parts[0] ?? ''
      for (const part of parts.slice(1)) {
        const end = part.indexOf(END)
        const name = part.slice(0, end)
        const body = part.slice(end + END.length)
        if (name === 'body' || name === 'content') content += body
        else blocks[name] = (blocks[name] ?? '') + body
      }
      if (!layout) return content
      const layoutFile = find(layout)
      if (!layoutFile) throw new Error(`the layout '${layout}' is in none of ${dirs.join(', ')}`)
      const slots = Object.fromEntries(BLOCKS.map((name) => [name, blocks[name] ?? '']))
      return ejs.renderFile(
        layoutFile,
        { ...locals, ...slots, title: blocks.title || locals.title || '', blocks, content },
        { ...options, filename: layoutFile },
      )
    },
  }
}

/** One render function per template namespace (`app`, and each plugin with template folders). */
export class Renderers {
  readonly #app: string
  readonly #cache: boolean
  readonly #byPlugin = new Map<string, { dirs: readonly string[]; render: Render }>()
  /** The claim each other plugin's folders came with (`adopt`). */
  readonly #claims = new Map<string, number>()
  readonly #appRender: Render

  constructor(appViews: string, cache: boolean) {
    this.#app = appViews
    this.#cache = cache
    this.#appRender = this.#make(appViews, [appViews])
  }

  #make(root: string, dirs: readonly string[]): Render {
    const cache = this.#cache
    let render: Render | undefined
    // koa-views is loaded on the first page drawn, not with the web service: it brings an HTML
    // beautifier (pretty, js-beautify: 30 modules) that a manager which draws no page, and every
    // plugin thread with routes, would otherwise compile at start.
    return function (this: unknown, view, locals) {
      // Library seam: koa-views' typings give only its middleware, not the call without a context
      // that returns the render function (the one its own usage note shows: `app.context.render = render()`).
      render ??= (require('koa-views') as (root: string, options: object) => () => Render)(root, {
        extension: 'ejs',
        autoRender: false,
        engineSource: layoutEngine(dirs, cache),
      })()
      return render.call(this, view, locals)
    }
  }

  /** A plugin's folders as it is loaded again or unloaded: what was compiled from them before is forgotten. */
  setPlugin(plugin: string, dirs: readonly string[]): void {
    // EJS keeps compiled templates by file name, for the whole process (a reload is rare: the
    // app's own views are compiled again once too).
    if (this.#cache) ejs.clearCache()
    if (dirs.length === 0) {
      this.#byPlugin.delete(plugin)
      return
    }
    // A plugin's own folders first (its views and partials), then the app's (the base layout and partials).
    const all = [...dirs, this.#app]
    const renders = dirs.map((dir) => ({ dir, render: this.#make(dir, all) }))
    const render: Render = function (this: unknown, view, locals) {
      const file = view.endsWith('.ejs') ? view : `${view}.ejs`
      const found = renders.find((r) => existsSync(join(r.dir, file)))
      if (!found) throw new SmError('SM_ERR_WEB_TEMPLATE_NOT_FOUND', { view, plugin })
      return found.render.call(this, view, locals)
    }
    this.#byPlugin.set(plugin, { dirs, render })
  }

  /**
   * Another plugin's folders as the manager has them (`folders`: none once it is gone), for its
   * pages drawn by name from a plugin's thread: set again only from a newer claim, since page
   * data from before its reload may come after that of after it.
   */
  adopt(plugin: string, folders: { readonly dirs: readonly string[]; readonly claim: number } | undefined): void {
    if (folders ? folders.claim <= (this.#claims.get(plugin) ?? 0) : !this.#claims.has(plugin)) return
    this.setPlugin(plugin, folders?.dirs ?? [])
    if (folders) this.#claims.set(plugin, folders.claim)
    else this.#claims.delete(plugin)
  }

  /** `plugin:view`, or a bare view of `plugin` (the route's own plugin) or of the app. */
  render(ctx: object, view: string, locals: Record<string, unknown>, plugin?: string): Promise<string> {
    const { namespace, name } = viewName(view, plugin)
    if (namespace === 'app') return this.#appRender.call(ctx, name, locals)
    const entry = this.#byPlugin.get(namespace)
    if (!entry) throw new SmError('SM_ERR_WEB_TEMPLATE_NOT_FOUND', { view: name, plugin: namespace })
    return entry.render.call(ctx, name, locals)
  }
}
