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

/**
 * The exceptions, each a file of the CLI that does in the CLI's own process what no bus message
 * can do for it, and the modules of other services (or the composition roots) it may import.
 */
const DOORS = [
  {
    file: 'services/cli/session',
    may: ['services/bridge/client', 'manager'],
    why:
      "a CLI process reaches the running manager with the bridge's client (the one piece a process " +
      'outside the manager needs), or, when none runs, boots the composition root in its own process ' +
      '(lazily: a client never loads it)',
  },
  {
    file: 'services/cli/plugin-host',
    may: [
      'services/plugins/(plugin-module|plugin-gateway|guarded-call|event-names)',
      'services/log/logger',
      '(index|web|cli)',
    ],
    why:
      "a plugin's CLI commands and menu items run in the CLI process: it imports the plugin with the " +
      "plugins service's importer (the SDK modules are what the plugin's `import 'server-manager'` " +
      'resolves to) and gives it the plugin gateway, guarded listeners and a logger, as the manager does',
  },
  {
    file: 'services/cli/plugin-commands',
    may: ['services/plugins/(cli-contributions|fingerprint|extension)'],
    why:
      "the plugins' commands join oclif's from <data dir>/cache/cli.json, which the plugins service " +
      'writes and describes; an entry whose plugin changed is checked and described again here, as ' +
      'the plugins service does',
  },
  {
    file: 'services/cli/commands/server/start',
    may: ['services/servers/supervisor/(client|run-files)'],
    why:
      '`server start --direct` owns the run: it holds its own connection to the supervisor, which ' +
      'stops the game when that connection ends, however this command ends (even killed)',
  },
]

const literal = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
const compiled = (path) => `^dist/${path}\\.js$`
/** Another service's code or a root file: what a service must not import. */
const OUTSIDE = '^dist/(services/[^/]+/|[^/]+\\.js$)'
const OWN_OR_CONTRACT = (service) => [`^dist/services/${service}/`, '^dist/services/[^/]+/contract\\.js$']

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
      from: { path: '^dist/services/([^/]+)/', pathNot: DOORS.map((door) => compiled(door.file)) },
      to: { path: OUTSIDE, pathNot: OWN_OR_CONTRACT('$1') },
    },
    ...DOORS.map((door) => ({
      name: `door:${door.file}`,
      comment: `An exception, for this file only: ${door.why}.`,
      severity: 'error',
      from: { path: compiled(door.file) },
      to: {
        path: OUTSIDE,
        pathNot: [...OWN_OR_CONTRACT(door.file.split('/')[1]), ...door.may.map(compiled)],
      },
    })),
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
