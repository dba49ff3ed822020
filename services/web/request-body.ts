import { SmError } from '../../kernel/errors'

/**
 * The deepest nesting of arrays and objects read from a JSON body (serde_json's default limit).
 * Code that walks a value recursively (JSON.stringify, zod, a payload copy) overflows the stack
 * some thousands of levels down, which would be a 500 instead of a refusal.
 */
const MAX_JSON_DEPTH = 128

interface Deferred {
  readonly read: () => Promise<(() => void) | undefined>
  reading?: Promise<void>
  cleanup?: () => void
}

const deferred = new WeakMap<object, Deferred>()

/**
 * Holds a request's body unread until its route's guard has passed (`readBody`): a request that
 * matches no route, or whose caller may not call the route, is answered without reading a byte
 * of its body, and no upload is written to disk for it. `read` resolves with what deletes the
 * files it left, if any.
 */
export function deferBody(ctx: object, read: () => Promise<(() => void) | undefined>): void {
  deferred.set(ctx, { read })
}

/** Reads the body held by `deferBody`, once; undefined when there is none (nothing to wait for). */
export function readBody(ctx: object): Promise<void> | undefined {
  const entry = deferred.get(ctx)
  if (!entry) return undefined
  entry.reading ??= entry.read().then((cleanup) => {
    entry.cleanup = cleanup
  })
  return entry.reading
}

/** The request is over: deletes what its body left on disk. */
export function releaseBody(ctx: object): void {
  const entry = deferred.get(ctx)
  if (!entry) return
  deferred.delete(ctx)
  entry.cleanup?.()
}

/** Refuses a parsed JSON body nested deeper than MAX_JSON_DEPTH; `rawLength` skips the walk for bodies too short to be. */
export function checkJsonDepth(value: unknown, rawLength: number): void {
  if (rawLength < 2 * MAX_JSON_DEPTH || value === null || typeof value !== 'object') return
  // A loop, not recursion: the check must not overflow on what it refuses.
  const stack: [object, number][] = [[value, 1]]
  for (let item = stack.pop(); item; item = stack.pop()) {
    const [node, depth] = item
    if (depth > MAX_JSON_DEPTH) throw new SmError('SM_ERR_WEB_JSON_TOO_DEEP', { limit: MAX_JSON_DEPTH })
    for (const child of Object.values(node))
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1])
  }
}
