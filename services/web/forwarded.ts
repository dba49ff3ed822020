import type { IncomingMessage } from 'node:http'

/** The headers a proxy sets, or appends to what the client sent, besides X-Forwarded-For. */
const SET_BY_PROXY = ['x-forwarded-host', 'x-forwarded-proto'] as const

/**
 * Behind the one trusted proxy (web.trust_proxy), keeps of X-Forwarded-Host and X-Forwarded-Proto
 * only the right-most entry: the one that proxy set. What comes before it was sent by the client,
 * and Koa takes the left-most: a client could name one of our hosts to pass the Host check (a
 * rebound domain then reaches the manager), or a scheme that makes another origin's page the
 * request's own for the Origin check. The client address is taken the same way (Koa's
 * maxIpsCount = 1 for X-Forwarded-For).
 */
export function keepProxyEntries(request: IncomingMessage): void {
  for (const name of SET_BY_PROXY) {
    const value = request.headers[name]
    if (value === undefined) continue
    const joined = Array.isArray(value) ? value.join(',') : value
    request.headers[name] = joined.slice(joined.lastIndexOf(',') + 1).trim()
  }
}
