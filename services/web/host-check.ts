import { isIP } from 'node:net'
import { networkInterfaces } from 'node:os'
import { SmError } from '../../kernel/errors'

/** Addresses that mean "every address of this machine" when listened on. */
const WILDCARDS = new Set(['', '0.0.0.0', '::', '::0'])

/**
 * Whether a request is addressed to this manager, and a write comes from its own pages. A page of
 * another site can make a browser reach the manager through a domain of its own that it points at
 * this machine (DNS rebinding); the browser then sends that domain as Host, so only the manager's
 * own names are answered: loopback (`localhost`, `*.localhost`, 127.0.0.0/8, ::1), the configured
 * names, and, when it listens on every address, any address of this machine (an address cannot
 * be rebound). A write whose Origin is not the request's own origin came from another site's page.
 */
export class HostCheck {
  #names = new Set<string>()
  #any = false
  #wildcard = false
  /** Host headers already accepted (nearly every request repeats one), so most requests cost one lookup. */
  readonly #accepted = new Set<string>()

  constructor() {
    this.configure([])
  }

  /** Replaces the names: web.host, the address listened on, web.allowed_hosts (`*`: any name). */
  configure(names: readonly string[]): void {
    const normalized = names.map((name) => hostnameOf(name))
    this.#any = normalized.includes('*')
    this.#wildcard = normalized.some((name) => WILDCARDS.has(name))
    this.#names = new Set(['localhost', '::1', ...normalized.filter((name) => !WILDCARDS.has(name))])
    this.#accepted.clear()
  }

  /** The refusal of a request whose Host (`ctx.host`: X-Forwarded-Host behind a trusted proxy) is not one of ours. */
  hostRefusal(host: string): SmError | undefined {
    if (this.#accepted.has(host)) return undefined
    const name = hostnameOf(host)
    if (!this.#accepts(name)) return new SmError('SM_ERR_WEB_HOST_REFUSED', { host: name || '(none)' })
    if (this.#accepted.size >= 100) this.#accepted.clear()
    this.#accepted.add(host)
    return undefined
  }

  /** The refusal of a write whose Origin header (sent by browsers) is not the request's own origin. */
  originRefusal(origin: string, own: string): SmError | undefined {
    if (!origin || origin === own || sameOrigin(origin, own)) return undefined
    return new SmError('SM_ERR_WEB_ORIGIN_REFUSED', { origin, own })
  }

  #accepts(name: string): boolean {
    if (this.#any || this.#names.has(name) || name.endsWith('.localhost')) return true
    const family = isIP(name)
    if (family === 4 && name.startsWith('127.')) return true
    // Interfaces come and go (DHCP, VPN): read them when an address is not already known.
    return family !== 0 && this.#wildcard && ownAddresses().has(name)
  }
}

/** `Example.com:8080` → `example.com`, `[::1]:80` → `::1`, `localhost.` → `localhost`. */
function hostnameOf(host: string): string {
  const trimmed = host.trim().toLowerCase()
  if (trimmed.startsWith('[')) {
    const end = trimmed.indexOf(']')
    return trimmed.slice(1, end < 0 ? undefined : end)
  }
  if (isIP(trimmed) === 6) return trimmed
  const name = trimmed.split(':')[0] as string
  return name.endsWith('.') ? name.slice(0, -1) : name
}

function ownAddresses(): Set<string> {
  const addresses = new Set<string>()
  for (const list of Object.values(networkInterfaces()))
    for (const info of list ?? []) addresses.add(info.address.toLowerCase().replace(/%.*$/, ''))
  return addresses
}

function sameOrigin(a: string, b: string): boolean {
  try {
    return new URL(a).origin === new URL(b).origin
  } catch {
    return false
  }
}
