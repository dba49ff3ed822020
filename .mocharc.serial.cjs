/**
 * The suite's second pass (`npm test` runs it after .mocharc.cjs's parallel one): the files that
 * must have the machine to themselves, one after another. A file belongs here when what it checks
 * depends on how loaded the machine is, or when it loads the machine for others: it measures time
 * (a bound on how long something takes, a percentile, a watchdog that must not fire), stops a
 * process for seconds (SIGSTOP), fills a disk to the last byte, cuts a link for a set time, or
 * benchmarks. Every other file runs in the parallel pass: each test makes its own temp dirs and
 * takes free ports, so files do not see each other (docs/architecture.md, Tests).
 */
const serial = [
  // Benchmarks: every one end to end, each measuring against its own baseline.
  'test/bench/quick.test.ts',
  // Time-bound checks: a loop watchdog that must not fire while SIGSTOP holds the manager, hook
  // timeouts of 300 ms against a took-below bound, a p99 of status answers while a hook spins.
  'test/services/plugins/containment.test.ts',
  'test/services/plugins/hooks.test.ts',
  'test/services/plugins/threads.test.ts',
  // A link cut for 30 s, long enough for the NATS client to give up its own reconnects.
  'test/services/bridge/three-hosts.test.ts',
  // Full disks: a tmpfs filled to the last byte under a manager, its supervisors and the CLI.
  'test/services/bridge/full-disk-start.test.ts',
  'test/services/cli/cli-cache-full-disk.test.ts',
  'test/services/plugins/full-disk.test.ts',
  'test/services/servers/metrics-full-disk.test.ts',
  'test/services/servers/supervisor-full-disk.test.ts',
  'test/services/settings/full-disk.test.ts',
  'test/services/tasks/full-disk.test.ts',
].map((file) => `dist/${file.replace(/\.ts$/, '.js')}`)

module.exports = {
  spec: serial,
  timeout: 30000,
  forbidOnly: true,
  reporter: './dist/test/helpers/summary-reporter.js',
  'enable-source-maps': true,
  require: ['./dist/test/helpers/setup.js'],
}
