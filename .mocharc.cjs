/**
 * The suite's first pass: every test file but those of .mocharc.serial.cjs, several at a time
 * (mocha's parallel mode: each worker runs whole files, with its own root hooks and its own
 * SM_TEST_RUN, so the leak check at the end of a file sees only that worker's processes).
 * SM_TEST_JOBS overrides the number of workers.
 */
const { availableParallelism } = require('node:os')
const serial = require('./.mocharc.serial.cjs').spec

/**
 * Workers: one fewer than the machine's cores (SM_TEST_JOBS overrides), so on a 2-core machine one,
 * which is a plain serial run. The tests are CPU-bound where it counts (cold CLI processes and
 * manager boots): on this project's 2-core machines 3 workers took 31 min for this pass against
 * 28 serially, and load made 9 tests time out (issue 33's note).
 */
const jobs = Number(process.env.SM_TEST_JOBS) || Math.max(1, availableParallelism() - 1)

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
