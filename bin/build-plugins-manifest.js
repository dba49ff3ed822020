#!/usr/bin/env node
// Run by `npm run build` after the TypeScript is compiled: discovers the plugins this package
// ships into dist/plugins.manifest.json and transpiles them into dist/plugins-cache, so that a new
// data directory lists and loads them without a thread or Babel (services/plugins/shipped.ts).
const { writeShippedManifest } = require('../dist/services/plugins/shipped')

writeShippedManifest({
  sdk: require('../dist/index'),
  web: () => require('../dist/web'),
  cli: () => require('../dist/cli'),
}).then(
  (names) => console.log(`plugins manifest: ${names.length} shipped plugins (${names.join(', ')})`),
  (error) => {
    console.error(
      `Error [SM_ERR_INTERNAL]: the shipped plugins' manifest could not be written: ${error?.message ?? error}`,
    )
    process.exitCode = 1
  },
)
