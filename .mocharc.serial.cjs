/**
 * The suite's second pass (`npm test` runs it after .mocharc.cjs's parallel one): the files that
 * must have the machine to themselves, one after another. A file belongs here when what it checks
 * depends on how loaded the machine is, or when it loads the machine for others: it measures time
 * (a bound on how long something takes, a percentile, a watchdog that must not fire), stops a
 * process for seconds (SIGSTOP), cuts a link for a set time, or benchmarks. Every other file runs
 * in the parallel pass: each test makes its own temp dirs and takes free ports, so files do not
 * see each other (docs/architecture.md, Tests); the full-disk files too, each filling a tmpfs of
 * its own.
 */
const serial = [
  // Benchmarks' quick mode: it checks no goal, but runs every benchmark (autocannon at 50
  // connections, 50 supervised servers, a backup of a generated world) and so loads the machine
  // for others: beside it in the parallel pass, a multi-host test timed out (issue 33's note).
  'test/bench/quick.test.ts',
  // Time-bound checks: a loop watchdog that must not fire while SIGSTOP holds the manager, hook
  // timeouts of 300 ms against a took-below bound, a p99 of status answers while a hook spins.
  'test/services/plugins/containment.test.ts',
  'test/services/plugins/hooks.test.ts',
  'test/services/plugins/threads.test.ts',
  // A link cut for 30 s, long enough for the NATS client to give up its own reconnects.
  'test/services/bridge/three-hosts.test.ts',
].map((file) => `dist/${file.replace(/\.ts$/, '.js')}`)

module.exports = {
  spec: serial,
  timeout: 30000,
  forbidOnly: true,
  reporter: './dist/test/helpers/summary-reporter.js',
  'enable-source-maps': true,
  require: ['./dist/test/helpers/setup.js'],
}
