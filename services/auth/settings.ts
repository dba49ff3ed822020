import { defineSettings, wholeNumber } from '../../kernel/setting-catalogue'

/** The auth service's settings (docs/settings.md). */
export const authSettings = defineSettings('auth', {
  'auth.session_hours': {
    default: 24,
    summary: 'how long a web session lasts without "remember me"',
    rule: wholeNumber(1, 24 * 366),
  },
  'auth.remember_days': {
    default: 28,
    summary: 'how long a "remember me" session lasts',
    rule: wholeNumber(1, 366),
  },
  'auth.login_max_failures': {
    default: 10,
    summary:
      'failed sign-ins allowed per user name at one client within auth.login_window_s (ten times as many per user name, and per client)',
    rule: wholeNumber(1, 10_000),
  },
  'auth.login_window_s': {
    default: 300,
    summary: 'the window of auth.login_max_failures, in seconds',
    rule: wholeNumber(1, 86_400),
  },
  'auth.require_two_factor_admins': {
    default: false,
    summary:
      'admins must sign in with two-factor sign-in: one without it may only enrol once signed in (API tokens and the local CLI are not affected)',
  },
  'auth.password_min_length': {
    default: 8,
    summary: 'the shortest password accepted for a new or reset password',
    rule: wholeNumber(1, 1_024),
  },
})
