#!/usr/bin/env node
// The host agent of a data directory in the foreground, kept running (--stay): for a service
// manager such as systemd. Usage: server-manager-agent [<data dir>] (default: $SM_DATA_DIR, else
// ~/.server-manager). Commands start an agent by themselves when none runs; this one stays when
// it supervises nothing, and adopts every game still running when it starts.
const { existsSync } = require('node:fs')
const { join } = require('node:path')

process.umask(0o077)
const program = join(__dirname, '..', 'dist', 'services', 'servers', 'supervisor', 'agent.js')
if (!existsSync(program)) {
  console.error(
    'Error [SM_ERR_INTERNAL]: server-manager is not built. Run `npm install` (or `npm run build`) in its folder first.',
  )
  process.exit(70)
}
const args = process.argv.slice(2)
if (args.some((arg) => arg.startsWith('-') && arg !== '--stay') || args.filter((a) => a !== '--stay').length > 1) {
  console.error('usage: server-manager-agent [<data dir>]')
  process.exit(64)
}
const { resolveDataDir } = require('../dist/lib/data-dir.js')
process.argv = [process.argv[0], program, args.find((a) => a !== '--stay') ?? resolveDataDir(), '--stay']
require(program)
