#!/usr/bin/env node
// The server-manager command. The TypeScript sources are compiled to dist/ by `npm install`
// (the prepare script) or `npm run build`.
const { existsSync } = require('node:fs')
const { join } = require('node:path')

// Taken before any plugin can replace it: the command ends the process itself once its work is done.
const exit = process.exit.bind(process)

if (!existsSync(join(__dirname, '..', 'dist', 'services', 'cli', 'commands'))) {
  console.error(
    'Error [SM_ERR_INTERNAL]: server-manager is not built. Run `npm install` (or `npm run build`) in its folder first.',
  )
  exit(70)
}

void (async () => {
  // A referenced timer keeps the process alive until the command has finished: the timers that
  // bound plugin code are unref'd, and must still fire when nothing else is pending.
  const keepAlive = setInterval(() => {}, 1 << 30)
  const oclif = await import('@oclif/core')
  await oclif.execute({ dir: __dirname })
  clearInterval(keepAlive)
  // Whatever plugins left running (timers, sockets) does not outlive the command; what the
  // command printed does (a pipe takes large output in several writes).
  await Promise.all([process.stdout, process.stderr].map((stream) => new Promise((done) => stream.write('', done))))
  exit()
})()
