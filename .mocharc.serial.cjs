/**
 * The suite's second pass (`npm test` runs it after .mocharc.cjs's parallel one): what must have
 * the machine to itself because it loads the machine for others. No test checks how long
 * something takes (a hook timeout a test relies on is long enough that load never reaches it,
 * and percentiles are benchmarks' figures), so files that stop a process (SIGSTOP), cut a link or
 * wait out a watchdog run in the parallel pass like the rest (docs/architecture.md, Tests).
 */
const serial = [
  // Benchmarks' quick mode: it checks no goal, but runs every benchmark (autocannon at 50
  // connections, 50 supervised servers, a backup of a generated world) and so loads the machine
  // for others: beside it in the parallel pass, a multi-host test timed out (issue 33's note).
  'test/bench/quick.test.ts',
].map((file) => `dist/${file.replace(/\.ts$/, '.js')}`)

module.exports = {
  spec: serial,
  timeout: 30000,
  forbidOnly: true,
  reporter: './dist/test/helpers/summary-reporter.js',
  'enable-source-maps': true,
  require: ['./dist/test/helpers/setup.js'],
}
