// Loaded by mocha before any test (.mocharc.cjs; once in each worker of the
// parallel run): every manager a test starts, in-process or as a CLI child (which inherits this
// environment), runs without the shipped default plugins, so the event log holds only what the
// test did. A test of the defaults turns them back on for its process.
process.env.SM_DEFAULT_PLUGINS = 'off'
// Every request, reply and declared event is checked against its contract, in this process and
// in every CLI and manager process a test starts (they inherit the environment).
process.env.SM_CHECK_BUS = '1'
// Password hashes at scrypt's N=2^10, not 2^17: the same code, a thousandth of the work, for the
// hundreds of sign-ins of the suite (services/auth/passwords.ts; test/services/auth/passwords.test.ts
// checks the product's own cost).
process.env.SM_TEST_PASSWORD_COST = '10'

import { lazyZodLocales } from '../../lib/lazy-zod-locales'

// As bin/run.js does, before anything loads zod.
lazyZodLocales()

import { rootHooks } from './run-end'
import { removeAtRunEnd } from './temp-dir'

/**
 * Mocha's root hooks: what helpers started is cleaned up after its user (afterItsUser), and at
 * the end of the whole run nothing the run started may still run, and its temp dirs go.
 */
export const mochaHooks = rootHooks
removeAtRunEnd()
