import Mocha from 'mocha'

/**
 * Mocha's spec reporter plus one plain closing line, `N passed, N failed, N skipped`, that tools
 * reading test output understand whatever the runner.
 */
class SummaryReporter extends Mocha.reporters.Spec {
  constructor(runner: Mocha.Runner, options?: Mocha.MochaOptions) {
    super(runner, options)
    runner.once(Mocha.Runner.constants.EVENT_RUN_END, () => {
      const { passes, failures, pending } = runner.stats ?? { passes: 0, failures: 0, pending: 0 }
      process.stdout.write(`\n${passes} passed, ${failures} failed, ${pending} skipped\n`)
    })
  }
}

export = SummaryReporter
