/** Whitespace and control characters: browsers drop tabs and newlines from a URL, so `/\t/host` is `//host`. */
const UNSAFE = /[\s\p{Cc}]/u
/** One leading `/`, not `//` or `/\`, which browsers read as another host. */
const ONE_SLASH = /^\/(?![/\\])/

/**
 * Where to send a user after sign-in: `next` when it is a path on this very origin, else `/`.
 * Both what is asked and what is answered must start with one `/` (not `//` or `/\`), hold no
 * whitespace or control character (also once percent-decoded), and resolve against `origin` to
 * `origin` itself. The answer is checked too: the URL parser resolves dot segments, so
 * `/.//host` (or `/a/..//host`) is a fine path that resolves to `//host`, another host.
 */
export function sameOriginPath(next: unknown, origin: string): string {
  if (typeof next !== 'string' || !isSafe(next)) return '/'
  try {
    const url = new URL(next, origin)
    const path = `${url.pathname}${url.search}${url.hash}`
    if (url.origin !== new URL(origin).origin || !isSafe(path)) return '/'
    return path
  } catch {
    // No origin to compare with (no Host header): nowhere but home.
    return '/'
  }
}

/** Whether `path` starts with one `/` and has no whitespace or control character, as it is and once decoded. */
function isSafe(path: string): boolean {
  if (!ONE_SLASH.test(path) || UNSAFE.test(path)) return false
  try {
    const decoded = decodeURIComponent(path)
    return ONE_SLASH.test(decoded) && !UNSAFE.test(decoded)
  } catch {
    return false
  }
}
