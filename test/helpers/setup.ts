// Loaded by mocha before any test (.mocharc.json): every manager a test starts, in-process or as a
// CLI child (which inherits this environment), runs without the shipped default plugins, so the
// event log holds only what the test did. A test of the defaults turns them back on for its process.
process.env.SM_DEFAULT_PLUGINS = 'off'

import { runEnd } from './run-end'

/** Mocha's root hooks: at the end of the whole run, nothing the run started may still run, and its temp dirs go. */
export const mochaHooks = {
  async afterAll(this: Mocha.Context) {
    // Killing what was left can wait for slow deaths; the check itself takes milliseconds.
    this.timeout(60_000)
    await runEnd()
  },
}
