/**
 * The module boundaries of docs/architecture.md ("Module boundaries"), checked in `npm test`
 * (`npm run depcheck`) by dependency-cruiser:
 *
 * - a file of `services/<a>/` imports only `kernel/`, `lib/`, its own service's folder and other
 *   services' `contract.ts`: services talk through the bus, so a service can move to another
 *   thread, process or host without taking another's code along;
 * - `kernel/` imports nothing of ours but itself; `lib/` imports only `lib/` and `kernel/`;
 * - no cycle between the folders `kernel/`, `lib/` and `services/<name>/`.
 *
 * The root files (manager.ts, index.ts, cli.ts, web.ts) are the composition roots and the SDK
 * doors: they may import any service. test/ and bench/ are outside the rule.
 *
 * It reads the compiled JavaScript in dist/ (`npm test` builds first): dependency-cruiser parses
 * TypeScript only with the TypeScript compiler's API, which TypeScript 7 does not have. So it sees
 * every import that is code at run time; an `import type` is erased by the compiler and not seen.
 */
const { existsSync, readdirSync } = require('node:fs')
const { join, relative } = require('node:path')

const literal = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
/** Another service's code or a root file: what a service must not import. */
const OUTSIDE = '^dist/(services/[^/]+/|[^/]+\\.js$)'
const OWN_OR_CONTRACT = (service) => [`^dist/services/${service}/`, '^dist/services/[^/]+/contract\\.js$']
/** A service's contract: contract.js, or the files of a contract split by area (contract-*.js, contract/). */
const CONTRACT = '^dist/services/[^/]+/contract[-/.]'

/** Compiled files whose source is gone (tsc does not delete them): not part of the code any more. */
function staleOutput(root) {
  const stale = []
  const walk = (dir) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) {
        if (path !== join('dist', 'test') && path !== join('dist', 'bench')) walk(path)
      } else if (entry.name.endsWith('.js') && !existsSync(join(root, relative('dist', path).replace(/\.js$/, '.ts'))))
        stale.push(path)
    }
  }
  if (existsSync(join(root, 'dist'))) walk('dist')
  return stale
}

module.exports = {
  forbidden: [
    {
      name: 'service-imports-another-service',
      comment:
        "A service imports only kernel/, lib/, its own folder and other services' contract.ts (docs/architecture.md, Module boundaries).",
      severity: 'error',
      from: { path: '^dist/services/([^/]+)/' },
      to: { path: OUTSIDE, pathNot: OWN_OR_CONTRACT('$1') },
    },
    {
      name: 'contract-is-a-leaf',
      comment:
        "A service's contract holds types, schemas and constants only: it imports kernel/, lib/ and contracts, none of its service's code, which would load (or be typed) with it wherever it is imported.",
      severity: 'error',
      from: { path: CONTRACT },
      to: { path: '^dist/(services/|[^/]+\\.js$)', pathNot: CONTRACT },
    },
    {
      name: 'kernel-imports-only-kernel',
      comment:
        'The kernel is the bus, the registry, the lifecycle, the context and the catalogues: it needs nothing of ours.',
      severity: 'error',
      from: { path: '^dist/kernel/' },
      to: { path: '^dist/(services/|lib/|[^/]+\\.js$)' },
    },
    {
      name: 'lib-imports-only-lib-and-kernel',
      comment: 'lib/ holds what services share and no service owns: it imports no service.',
      severity: 'error',
      from: { path: '^dist/lib/' },
      to: { path: '^dist/(services/|[^/]+\\.js$)' },
    },
    {
      name: 'agent-loads-light',
      comment:
        "The host agent (servers/supervisor/agent.ts) starts with the first game of a data directory and again after a reboot: it loads no schema, catalogue or bus (zod, tsyringe, kernel/index, a service's contract.js): with them its modules took 160 ms to load, without them 45. Its constants come from servers/contract/constants.ts.",
      severity: 'error',
      from: { path: '^dist/services/servers/supervisor/agent\\.js$' },
      to: {
        path: '^dist/(kernel/index|kernel/contract-catalogue|services/[^/]+/contract|services/servers/contract/(?!constants)[^/]+|lib/series-schema)\\.js$',
        reachable: true,
      },
    },
    {
      name: 'threads-load-light',
      comment:
        "What a plugin's thread loads (the SDK, the thread runtime, and where the plugin has routes the web SDK and its routes' runner) reaches no bus, registry or kernel lifecycle (tsyringe, eventemitter2): a thread per plugin pays for every module it loads. Contracts take what they declare from kernel/contract-catalogue.ts and kernel/token.ts, not from kernel/index.ts. (The CLI SDK is left out: a plugin's thread loads it only for a plugin that imports it, and what it could reach of the manager only when a CLI command boots one.)",
      severity: 'error',
      from: { path: '^dist/(index|web|services/plugins/thread/runtime|services/web/thread-routes)\\.js$' },
      to: { path: '^dist/kernel/(index|registry|bus|kernel)\\.js$', reachable: true },
    },
    {
      name: 'no-folder-cycle',
      comment:
        'No cycle between kernel/, lib/ and the services: each can be understood (and moved) after what it uses.',
      severity: 'error',
      scope: 'folder',
      from: { path: '^dist/(services/[^/]+|kernel|lib)(/|$)' },
      to: { path: '^dist/(services/[^/]+|kernel|lib)(/|$)', pathNot: '^dist/$1(/|$)', circular: true },
    },
  ],
  options: {
    includeOnly: '^dist/',
    exclude: {
      path: ['^dist/(test|bench)/', ...staleOutput(__dirname).map((path) => `^${literal(path)}$`)],
    },
    moduleSystems: ['cjs'],
  },
}
