/**
 * The suite's first pass: every test file but those of .mocharc.serial.cjs, several at a time
 * (mocha's parallel mode: each worker runs whole files, with its own root hooks and its own
 * SM_TEST_RUN, so the leak check at the end of a file sees only that worker's processes).
 * SM_TEST_JOBS overrides the number of workers.
 */
const { availableParallelism } = require('node:os')
const serial = require('./.mocharc.serial.cjs').spec

/**
 * Workers: one more than the cores (SM_TEST_JOBS overrides), three on this project's 2-core
 * machines. Much of a test is waiting (on a game's line, a child's exit, a broker, a hook
 * timeout), and since most commands run in-process (test/helpers/cli-in-process.ts) a file costs
 * far less CPU: three files at a time took the first pass from 15 min to 12 min 46 s here (issue
 * 33's note). Before that, with a cold process per command, three workers were slower than two.
 */
const jobs = Number(process.env.SM_TEST_JOBS) || availableParallelism() + 1

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
