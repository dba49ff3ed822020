import { isIP } from 'node:net'
import { defineSettings, wholeNumber } from '../../kernel/setting-catalogue'

/** The web server's settings (docs/settings.md). */
export const webSettings = defineSettings('web', {
  'web.enabled': { default: true, summary: 'whether the manager serves the web UI and HTTP API' },
  'web.host': { default: '127.0.0.1', summary: 'the address the manager serves HTTP on' },
  'web.port': { default: 11_325, summary: 'its port', rule: wholeNumber(0, 65_535) },
  'web.allowed_hosts': {
    default: [] as string[],
    summary:
      'more host names the manager answers to (421 to any other): besides these, only loopback names and addresses, web.host and the address it listens on (with 0.0.0.0 or ::, every address of this machine); `"*"` turns the check off',
    rule: hostNames,
  },
  'web.max_body_kb': {
    default: 1_024,
    summary: 'the largest JSON or form request body accepted, in KiB (413 past it)',
    rule: wholeNumber(1, 1_048_576),
  },
  'web.max_upload_mb': {
    default: 512,
    summary: 'the largest multipart upload (a world, say) accepted, in MiB: all its files and fields together',
    rule: wholeNumber(1, 65_536),
  },
  'web.trust_proxy': {
    default: false,
    summary:
      'trust X-Forwarded-For, X-Forwarded-Proto and X-Forwarded-Host (only behind one reverse proxy you run; of each, the entry it sets is taken: the right-most)',
  },
})

const HOST_NAMES =
  'it must be a list of host names or addresses such as ["sm.example.com", "192.168.1.5"] (no scheme, port or path), or ["*"]'

/** A list of bare host names or addresses: no scheme, port or path, which the check would never match. */
function hostNames(value: unknown): string | undefined {
  if (!Array.isArray(value)) return HOST_NAMES
  for (const item of value) {
    const bare = typeof item === 'string' ? item.replace(/^\[(.*)\]$/, '$1') : ''
    if (bare !== '*' && !/^[a-z0-9._-]+$/i.test(bare) && isIP(bare) !== 6)
      return `${HOST_NAMES}, not ${JSON.stringify(item)}`
  }
  return undefined
}
