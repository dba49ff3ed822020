/**
 * The suite's first pass: every test file but those of .mocharc.serial.cjs, several at a time
 * (mocha's parallel mode: each worker runs whole files, with its own root hooks and its own
 * SM_TEST_RUN, so the leak check at the end of a file sees only that worker's processes).
 * SM_TEST_JOBS overrides the number of workers.
 */
const { availableParallelism } = require('node:os')
const serial = require('./.mocharc.serial.cjs').spec

/**
 * Workers: one per core (SM_TEST_JOBS overrides), two on this project's 2-core machines. Much of a
 * test is waiting (on a game's line, a child's exit, a broker), so two files at a time keep both
 * cores busy: the first pass took 15 min so against 28 serially (issue 33's note). More workers
 * than cores made tests time out under the load.
 */
const jobs = Number(process.env.SM_TEST_JOBS) || availableParallelism()

module.exports = {
  spec: ['dist/test/**/*.test.js'],
  ignore: serial,
  parallel: jobs > 1,
  jobs,
  timeout: 30000,
  forbidOnly: true,
  reporter: './dist/test/helpers/summary-reporter.js',
  'enable-source-maps': true,
  require: ['./dist/test/helpers/setup.js'],
}
