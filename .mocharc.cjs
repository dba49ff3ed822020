/**
 * The suite: every test file, several at a time (mocha's parallel mode: each worker runs whole
 * files, with its own root hooks and its own SM_TEST_RUN, so the leak check at the end of a file
 * sees only that worker's processes). SM_TEST_JOBS overrides the number of workers.
 */
const { readdirSync } = require('node:fs')
const { availableParallelism } = require('node:os')

/**
 * Workers: one more than the cores (SM_TEST_JOBS overrides), three on this project's 2-core
 * machines. Much of a test is waiting (on a game's line, a child's exit, a broker, a hook
 * timeout), and since most commands run in-process (test/helpers/cli-in-process.ts) a file costs
 * far less CPU: three files at a time took the run from 15 min to 12 min 46 s here (issue 33's
 * note); four are no faster than three (its sixth note). Before that, with a cold process per
 * command, three workers were slower than two.
 */
const jobs = Number(process.env.SM_TEST_JOBS) || availableParallelism() + 1

/**
 * The files that take longest (14 s to two minutes of waiting on watchdogs, hook timeouts, games,
 * hosts, browsers and the benchmarks' quick mode; measured in a run of issue 33's eighth pass),
 * longest first: they start first, so that no worker begins one of them when the others are
 * nearly done (web/metrics, 18 s, started last in path order and ended the run alone for 7 s);
 * the rest, all shorter, follow in path order. A file missing here only starts later: the list
 * orders, it does not select.
 */
const LONGEST_FIRST = [
  'services/plugins/containment',
  'bench/quick',
  'services/bridge/three-hosts',
  'services/bridge/remote-servers',
  'services/servers/process',
  'services/plugins/threads',
  'services/bridge/hosts',
  'browser/walk',
  'services/servers/interrupted',
  'browser/ui-bugs',
  'services/cli/menu',
  'services/cli/plugin-cli',
  'services/servers/backup-policy',
  'browser/ui',
  'services/web/openapi',
  'services/web/plugin-routes',
  'services/servers/real-java',
  'services/plugins/crash-loop',
  'services/servers/crash-found',
  'services/cli/in-process',
  'services/cli/start-detached',
  'services/plugins/links',
  'services/cli/plugin-commands',
  'services/plugins/loading',
  'services/cli/cli',
  'services/plugins/external-memory',
  'services/bridge/daemon',
  'services/web/metrics',
  'services/plugins/hooks',
  'services/servers/metrics',
  'services/cli/server-status-exit',
  'browser/players',
  'services/web/api',
  'services/bridge/nats',
  'services/servers/players',
].map((name) => `dist/test/${name}.test.js`)

// Before the first build there is no dist/test: mocha then says it found no test files.
const built = (() => {
  try {
    return readdirSync('dist/test', { recursive: true })
  } catch {
    return []
  }
})()
const files = built
  .filter((file) => file.endsWith('.test.js'))
  .map((file) => `dist/test/${file}`)
  .sort()

module.exports = {
  spec: [
    ...LONGEST_FIRST.filter((file) => files.includes(file)),
    ...files.filter((file) => !LONGEST_FIRST.includes(file)),
  ],
  parallel: jobs > 1,
  jobs,
  timeout: 30000,
  forbidOnly: true,
  reporter: './dist/test/helpers/summary-reporter.js',
  'enable-source-maps': true,
  require: ['./dist/test/helpers/setup.js'],
}
