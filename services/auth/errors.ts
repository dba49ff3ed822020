import { defineErrors, type ErrorMapOf, spec } from '../../kernel/error-catalogue'

/** The auth service's error codes (docs/errors.md). */
export const authErrors = defineErrors('auth', {
  SM_ERR_AUTH_REQUIRED: spec<Record<string, never>>({
    status: 401,
    exit: 77,
    when: 'A route that needs a signed-in user was called without a session or API token.',
    message: () =>
      'Not authenticated. Sign in (POST /auth/token) and send the token as "Authorization: Bearer <token>", or use an API token.',
  }),
  SM_ERR_AUTH_INVALID_CREDENTIALS: spec<Record<string, never>>({
    status: 401,
    exit: 77,
    when: 'A sign-in with an unknown user name or a wrong password.',
    message: () => 'Incorrect username or password.',
  }),
  SM_ERR_AUTH_TOKEN_INVALID: spec<{ reason: string }>({
    status: 401,
    exit: 77,
    when: 'A session or API token that is malformed, expired, revoked, or whose user is gone.',
    message: (p) => `The token is not valid (${p.reason}). Sign in again, or create a new API token.`,
  }),
  SM_ERR_AUTH_FORBIDDEN: spec<{ role: string; required: string }>({
    status: 403,
    exit: 77,
    when: 'A signed-in user or token whose role is below what the route requires.',
    message: (p) =>
      `You do not have permission to access this resource: it needs the role '${p.required}', and you have '${p.role}'.`,
  }),
  SM_ERR_AUTH_SESSION_REQUIRED: spec<Record<string, never>>({
    status: 403,
    exit: 77,
    when: "Account management (users, passwords, API tokens) or sign-out was asked with an API token instead of a signed-in session (a token below the route's role gets SM_ERR_AUTH_FORBIDDEN first).",
    message: () =>
      'Managing accounts, passwords and API tokens needs a signed-in session, not an API token. Sign in (POST /auth/token, or the web page) and send the session token.',
  }),
  SM_ERR_AUTH_CURRENT_PASSWORD: spec<Record<string, never>>({
    status: 403,
    exit: 77,
    when: 'A user changed their own password without giving their current password, or gave a wrong one.',
    message: () =>
      'To change your own password, give your current password as well (current_password). If you forgot it, ask an admin to reset it.',
  }),
  SM_ERR_AUTH_LOGOUT_NEEDS_POST: spec<Record<string, never>>({
    status: 405,
    exit: 64,
    when: 'GET /auth/logout: signing out needs POST, so that a link or image on another site cannot sign a user out.',
    message: () => "Sign out with POST /auth/logout (the page's Sign out button does).",
  }),
  SM_ERR_AUTH_CSRF: spec<Record<string, never>>({
    status: 403,
    exit: 77,
    when: 'A write request authenticated by the session cookie came without the matching X-CSRF-Token header.',
    message: () =>
      "This request is authenticated by the browser's cookie but lacks the X-CSRF-Token header (the value of the sm_csrf cookie). Reload the page, or call the API with an Authorization header instead.",
  }),
  SM_ERR_AUTH_RATE_LIMITED: spec<{ seconds: number }>({
    status: 429,
    exit: 75,
    when: 'Too many failed sign-ins for one user name from one client (auth.login_max_failures), or ten times as many for the name or from the client, in the window (auth.login_window_s).',
    message: (p) => `Too many failed sign-in attempts. Try again in ${p.seconds} s.`,
  }),
  SM_ERR_AUTH_SETUP_DONE: spec<Record<string, never>>({
    status: 409,
    exit: 65,
    when: 'First-run setup was asked for when users already exist.',
    message: () => "Setup is already complete: users exist. Sign in, or add users with 'server-manager user create'.",
    web: () => 'Setup is already complete: users exist. Sign in; an admin adds users on the Users page.',
  }),
  SM_ERR_AUTH_USER_EXISTS: spec<{ username: string }>({
    status: 409,
    exit: 65,
    when: 'A user was created with a name that is taken (names are compared without case).',
    message: (p) => `A user named '${p.username}' already exists. Pick another name.`,
  }),
  SM_ERR_AUTH_USER_NOT_FOUND: spec<{ username: string }>({
    status: 404,
    exit: 66,
    when: 'A user name that is not known.',
    message: (p) => `No user is named '${p.username}'. 'server-manager user list' lists them.`,
    web: (p) => `No user is named '${p.username}'. The Users page lists them.`,
  }),
  SM_ERR_AUTH_BAD_USERNAME: spec<{ username: string }>({
    status: 422,
    exit: 64,
    when: 'A user name that is empty, too long or has characters other than letters, digits, ".", "_" and "-".',
    message: (p) =>
      `'${p.username}' is not a valid user name: use 1 to 80 letters, digits, '.', '_' or '-', starting with a letter or digit.`,
  }),
  SM_ERR_AUTH_WEAK_PASSWORD: spec<{ min: number }>({
    status: 422,
    exit: 64,
    when: 'A password shorter than the minimum (or longer than 1024 characters).',
    message: (p) => `The password must have at least ${p.min} characters (and at most 1024).`,
  }),
  SM_ERR_AUTH_BAD_ROLE: spec<{ role: string }>({
    status: 422,
    exit: 64,
    when: 'A role other than user, moderator or admin.',
    message: (p) => `'${p.role}' is not a role: use user, moderator or admin.`,
  }),
  SM_ERR_AUTH_LAST_ADMIN: spec<{ username: string }>({
    status: 409,
    exit: 65,
    when: 'The last admin was to be deleted or demoted.',
    message: (p) =>
      `'${p.username}' is the last admin: make another user admin first ('server-manager user set-role <name> admin').`,
    web: (p) => `'${p.username}' is the last admin: make another user admin first (their role, on the Users page).`,
  }),
  SM_ERR_AUTH_ROLE_TOO_HIGH: spec<{ role: string; owner: string; ownerRole: string }>({
    status: 403,
    exit: 77,
    when: "An API token was asked for with a role above its owner's.",
    message: (p) =>
      `A token cannot have more rights than its owner: '${p.owner}' is ${p.ownerRole}, so the token can be at most ${p.ownerRole}, not ${p.role}.`,
  }),
  SM_ERR_AUTH_TOKEN_NOT_FOUND: spec<{ id: string }>({
    status: 404,
    exit: 66,
    when: 'An API token id that is not known (or was revoked).',
    message: (p) => `No API token has the id '${p.id}'. 'server-manager token list' lists them.`,
    web: (p) => `No API token has the id '${p.id}'. The Users page lists your tokens.`,
  }),
  SM_ERR_AUTH_NO_USERS: spec<Record<string, never>>({
    status: 409,
    exit: 65,
    when: 'An API token was asked for before any user exists (every token acts for a user).',
    message: () =>
      "No user exists yet, and every API token acts for one. Create the first admin ('server-manager user create <name> --role admin', or the web setup page) first.",
    web: () => 'No user exists yet, and every API token acts for one. Create the first admin on the setup page first.',
  }),
  SM_ERR_AUTH_FIRST_ADMIN: spec<{ username: string; role: string }>({
    status: 409,
    exit: 65,
    when: 'The first user of a data directory was to be created with a role other than admin (no one could then manage users, settings or plugins).',
    message: (p) =>
      `'${p.username}' would be the first user, and the first user must be an admin (no one could manage accounts or settings otherwise): create an admin first ('server-manager user create <name> --role admin', or leave --role out), then '${p.username}' as ${p.role}.`,
  }),
  SM_ERR_AUTH_NO_ADMIN: spec<Record<string, never>>({
    status: 409,
    exit: 65,
    when: 'An API token was asked for without naming the user it acts for, and no admin exists to act for by default.',
    message: () =>
      "No admin exists, so the token has no one to act for by default: name its user ('server-manager token create <name> --role <role> --user <user>'), or make a user admin first ('server-manager user set-role <name> admin').",
  }),
  SM_ERR_AUTH_BAD_TOKEN_NAME: spec<{ name: string }>({
    status: 422,
    exit: 64,
    when: 'An API token name that is empty or longer than 80 characters.',
    message: (p) => `'${p.name}' is not a valid token name: use 1 to 80 characters that say what the token is for.`,
  }),
  SM_ERR_AUTH_CODE_REQUIRED: spec<Record<string, never>>({
    status: 401,
    exit: 77,
    when: 'A sign-in to an account with two-factor sign-in, with the right password but no code.',
    message: () =>
      'This account has two-factor sign-in: give the 6-digit code from your authenticator app (or a recovery code) with the password (`code`).',
  }),
  SM_ERR_AUTH_CODE_INVALID: spec<Record<string, never>>({
    status: 401,
    exit: 77,
    when: 'A second-factor code that is wrong, expired, used already, or a recovery code that is spent.',
    message: () =>
      'The code is wrong, expired or used already: type the current code from your authenticator app (they change every 30 s), or an unused recovery code.',
  }),
  SM_ERR_AUTH_CURRENT_CODE: spec<{ action: string }>({
    status: 403,
    exit: 77,
    when: 'Two-factor sign-in was confirmed (turned on) or turned off with a code that is wrong, expired or used already.',
    message: (p) =>
      `To ${p.action}, give the current 6-digit code from your authenticator app${p.action.includes('off') ? ' (or a recovery code)' : ''}: it changes every 30 s, and each is taken once.`,
  }),
  SM_ERR_AUTH_TWO_FACTOR_ON: spec<{ username: string }>({
    status: 409,
    exit: 65,
    when: 'Two-factor enrolment was begun for an account that has it on already.',
    message: (p) =>
      `Two-factor sign-in is on for '${p.username}' already. To move it to another device, turn it off (with a code) and enrol again.`,
  }),
  SM_ERR_AUTH_TWO_FACTOR_OFF: spec<{ username: string; pending: boolean }>({
    status: 409,
    exit: 65,
    when: 'Two-factor sign-in was confirmed with no enrolment begun, or turned off or reset where it is not on.',
    message: (p) =>
      p.pending
        ? `No two-factor enrolment was begun for '${p.username}': begin it first (the Users page, or POST /api/account/two-factor).`
        : `Two-factor sign-in is not on for '${p.username}'.`,
  }),
  SM_ERR_AUTH_ADMIN_HAS_ALL: spec<{ username: string }>({
    status: 409,
    exit: 65,
    when: 'Rights on a server were to be granted to an admin, who has every right on every server.',
    message: (p) =>
      `'${p.username}' is an admin and has every right on every server: to hold them to some servers, make them a moderator or a user first.`,
  }),
  SM_ERR_AUTH_NO_SERVER_RIGHT: spec<{ server: string; right: string }>({
    status: 403,
    exit: 77,
    when: 'An account held to its server grants asked for something its rights on that server do not cover.',
    message: (p) =>
      `Your account may not do this on '${p.server}': it needs the '${p.right}' right there. Ask an admin to grant it (the server's Access section).`,
  }),
  SM_ERR_AUTH_HELD_TO_SERVERS: spec<{ required: string }>({
    status: 403,
    exit: 77,
    when: "An account held to its server grants asked for something that needs a role's reach on every server.",
    message: (p) =>
      `Your account is held to the servers it was granted, and this needs ${p.required === 'admin' ? 'an admin' : `a ${p.required}`} with every server's reach. Ask an admin.`,
  }),
  SM_ERR_AUTH_OWN_TWO_FACTOR: spec<Record<string, never>>({
    status: 409,
    exit: 65,
    when: "An admin reset their own second factor: one's own goes off only with a code.",
    message: () =>
      'To turn your own two-factor sign-in off, give a current code or a recovery code (the Users page, or POST /api/account/two-factor/disable); resetting is for other users.',
  }),
  SM_ERR_AUTH_TWO_FACTOR_REQUIRED: spec<Record<string, never>>({
    status: 403,
    exit: 77,
    when: 'An admin signed in without two-factor sign-in while auth.require_two_factor_admins is on: only enrolling (and signing out) is allowed.',
    message: () =>
      'Admins must use two-factor sign-in here (auth.require_two_factor_admins): turn it on first, on the Users page (or POST /api/account/two-factor).',
  }),
})

declare module '../../kernel/error-catalogue' {
  interface ErrorMap extends ErrorMapOf<typeof authErrors> {}
}
