#!/usr/bin/env node
// The server-manager command. The TypeScript sources are compiled to dist/ by `npm install`
// (the prepare script) or `npm run build`.
const { existsSync } = require('node:fs')
const { join } = require('node:path')

if (!existsSync(join(__dirname, '..', 'dist', 'services', 'cli', 'commands'))) {
  console.error(
    'Error [SM_ERR_INTERNAL]: server-manager is not built. Run `npm install` (or `npm run build`) in its folder first.',
  )
  process.exit(70)
}

void (async () => {
  const oclif = await import('@oclif/core')
  await oclif.execute({ dir: __dirname })
})()
