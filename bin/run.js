#!/usr/bin/env node
// The server-manager command. The TypeScript sources are compiled to dist/ by `npm install`
// (the prepare script) or `npm run build`.
const { existsSync } = require('node:fs')
const { join } = require('node:path')

// Before anything is created: what this process (and the manager and supervisors it starts)
// writes into the data directory is this user's alone (PRIVATE_UMASK, lib/data-dir.ts).
process.umask(0o077)

// Taken before any plugin can replace it: the command ends the process itself once its work is done.
const exit = process.exit.bind(process)

if (!existsSync(join(__dirname, '..', 'dist', 'services', 'cli', 'commands'))) {
  console.error(
    'Error [SM_ERR_INTERNAL]: server-manager is not built. Run `npm install` (or `npm run build`) in its folder first.',
  )
  exit(70)
}

// zod's translations of its messages load when first used, not with zod (lib/lazy-zod-locales.ts):
// before anything loads zod.
require('../dist/lib/lazy-zod-locales').lazyZodLocales()

// Output that cannot be written (a full disk under a background manager's output file, a closed
// pipe or terminal) is dropped, never the end of the process; it resumes once writing works.
const output = require('../dist/services/log/guarded-output')
output.guardProcessOutput()

// The CLI's door (server-manager/cli): with it, the error catalogues of the codes a command may
// raise in this process, whichever service declares them. Every module takes what it uses of
// @oclif/core by its subpath (@oclif/core/command, /flags, …): its index loads all of it and an
// engine check with the whole semver package, 95 more modules and about 0.1 s of CPU of every command.
require('../dist/cli')
// This process is the command's own: a manager it boots may guard its loop (services/cli/session.ts).
require('../dist/services/cli/session').CliSession.ownsProcess = true

void (async () => {
  // A referenced timer keeps the process alive until the command has finished: the timers that
  // bound plugin code are unref'd, and must still fire when nothing else is pending.
  const keepAlive = setInterval(() => {}, 1 << 30)
  const oclif = require('../dist/services/cli/oclif-run')
  let argv = process.argv.slice(2)
  // Alone on a terminal: the interactive menu; otherwise (a pipe, a script) the help.
  if (argv.length === 0 && process.stdin.isTTY && process.stdout.isTTY) argv = ['menu']
  await (async () => {
    const config = await oclif.Config.load({ root: join(__dirname, '..') })
    // The enabled plugins' commands, from their cache: no plugin code runs until one of them does.
    // Listings say why a plugin adds nothing; other commands stay quiet about it.
    const listing =
      argv.length === 0 || ['help', 'menu'].includes(argv[0]) || argv.some((a) => a === '--help' || a === '-h')
    await require('../dist/services/cli/plugin-commands').attachPluginCommands(config, { warn: listing })
    await oclif.run(argv, config)
    oclif.flush()
  })().catch((error) => {
    // A coded error raised outside a command (a plugin command that cannot load) keeps its code.
    if (typeof error?.code === 'string' && error.code.startsWith('SM_ERR_') && typeof error.exitCode === 'number') {
      process.stderr.write(`${require('../dist/kernel/errors').errorLine(error)}\n`)
      process.exitCode = error.exitCode
      return
    }
    return oclif.handle(error)
  })
  clearInterval(keepAlive)
  // A command whose output was lost did not do its work (a manager only logged: it carries on).
  const lost = output.lostOutput()
  if (lost && argv[0] !== 'start' && !process.exitCode) {
    const { SmError, errorLine } = require('../dist/kernel/errors')
    const reason = `${lost.dropped} writes to ${lost.stream} were lost: ${lost.reason}`
    process.stderr.write(`${errorLine(new SmError('SM_ERR_OUTPUT_LOST', { reason }))}\n`)
    process.exitCode = 74
  }
  // Whatever plugins left running (timers, sockets) does not outlive the command; what the
  // command printed does (a pipe takes large output in several writes).
  await Promise.all([process.stdout, process.stderr].map((stream) => new Promise((done) => stream.write('', done))))
  exit(process.exitCode)
})()
