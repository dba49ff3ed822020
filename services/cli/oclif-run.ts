/**
 * What runs a command line: oclif's config, runner, output flush and error handler, each by its
 * subpath (its index loads all of oclif and an engine check with the whole semver package, which
 * biome refuses). The one place bin/run.js and the tests' in-process commands
 * (test/helpers/cli-in-process.ts) take them from.
 */
export { Config } from '@oclif/core/config'
export { flush } from '@oclif/core/flush'
export { Exit, handle } from '@oclif/core/handle'
export { run } from '@oclif/core/run'
