/**
 * The suite's first pass: every test file but those of .mocharc.serial.cjs, several at a time
 * (mocha's parallel mode: each worker runs whole files, with its own root hooks and its own
 * SM_TEST_RUN, so the leak check at the end of a file sees only that worker's processes).
 * SM_TEST_JOBS overrides the number of workers.
 */
const serial = require('./.mocharc.serial.cjs').spec

module.exports = {
  spec: ['dist/test/**/*.test.js'],
  ignore: serial,
  parallel: true,
  jobs: Number(process.env.SM_TEST_JOBS) || 3,
  timeout: 30000,
  forbidOnly: true,
  reporter: './dist/test/helpers/summary-reporter.js',
  'enable-source-maps': true,
  require: ['./dist/test/helpers/setup.js'],
}
