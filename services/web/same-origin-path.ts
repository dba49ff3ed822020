/** Whitespace and control characters: browsers drop tabs and newlines from a URL, so `/\t/host` is `//host`. */
const UNSAFE = /[\s\p{Cc}]/u

/**
 * Where to send a user after sign-in: `next` when it is a path on this very origin, else `/`.
 * It must start with one `/` (not `//` or `/\`, which browsers read as another host), hold no
 * whitespace or control character (also once percent-decoded), and resolve against `origin`
 * to `origin` itself.
 */
export function sameOriginPath(next: unknown, origin: string): string {
  if (typeof next !== 'string' || !/^\/(?![/\\])/.test(next) || UNSAFE.test(next)) return '/'
  try {
    const decoded = decodeURIComponent(next)
    const url = new URL(next, origin)
    if (UNSAFE.test(decoded) || /^\/[/\\]/.test(decoded) || url.origin !== new URL(origin).origin) return '/'
    return `${url.pathname}${url.search}${url.hash}`
  } catch {
    // Not decodable, or no origin to compare with (no Host header): nowhere but home.
    return '/'
  }
}
