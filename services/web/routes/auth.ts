import Router from '@koa/router'
import { z } from 'zod'
import { SmError } from '../../../kernel'
import { authCommands, type Session } from '../../auth/contract'
import { CSRF_COOKIE, presentedToken, SESSION_COOKIE, type WebApp } from '../app'
import { currentUser, defineRoute, type WebContext } from '../route'
import { success } from './api-schemas'

const truthy = z
  .union([z.boolean(), z.enum(['true', 'false', 'on', 'off', '1', '0', 'yes', 'no'])])
  .optional()
  .transform((v) => v === true || v === 'true' || v === 'on' || v === '1' || v === 'yes')

const Credentials = z.object({
  username: z.string().trim().min(1, 'Username and password cannot be empty.').max(80),
  password: z.string().min(1, 'Username and password cannot be empty.').max(1024),
  remember_me: truthy,
})

/** Sign-in: the credentials, and for an account with two-factor sign-in its code. */
const SignIn = Credentials.extend({
  code: z.string().trim().max(40).optional().meta({
    description: 'the 6-digit code from the authenticator app, or a recovery code (accounts with two-factor sign-in)',
  }),
})

const TokenResponse = z
  .object({
    access_token: z.string(),
    token_type: z.literal('bearer'),
    expires_in: z.number().meta({ description: 'seconds' }),
    csrf_token: z.string().meta({ description: 'send as X-CSRF-Token on writes authenticated by the cookie' }),
    message: z.string(),
  })
  .meta({ id: 'TokenResponse' })

/** Sets the session cookie (httpOnly) and the CSRF cookie (readable by our pages' scripts). */
export function setSessionCookies(ctx: WebContext, session: Session): void {
  const common = { path: '/', sameSite: 'lax' as const, secure: ctx.secure, overwrite: true }
  ctx.cookies.set(SESSION_COOKIE, session.accessToken, { ...common, httpOnly: true, maxAge: session.expiresIn * 1000 })
  ctx.cookies.set(CSRF_COOKIE, session.csrf, {
    ...common,
    httpOnly: false,
    sameSite: 'strict',
    maxAge: session.expiresIn * 1000,
  })
}

function clearSessionCookies(ctx: WebContext): void {
  ctx.cookies.set(SESSION_COOKIE, null, { path: '/' })
  ctx.cookies.set(CSRF_COOKIE, null, { path: '/' })
}

function tokenBody(session: Session, message: string) {
  return {
    access_token: session.accessToken,
    token_type: session.tokenType,
    expires_in: session.expiresIn,
    csrf_token: session.csrf,
    message,
  }
}

/** Sign-in, sign-out, who am I, and first-run setup. */
export function authRoutes(app: WebApp): Router {
  const router = new Router()
  const tags = ['Auth']
  /** Checks the password (rate-limited per user and client), sets the cookies, answers with the token. */
  const signIn = async (ctx: WebContext, body: z.output<typeof SignIn>, message: string) => {
    const session = await app.bus.request('auth:login', {
      username: body.username,
      password: body.password,
      code: body.code,
      remember: body.remember_me,
      client: ctx.ip,
    })
    setSessionCookies(ctx, session)
    return tokenBody(session, message)
  }

  defineRoute(
    router,
    {
      method: 'post',
      path: '/auth/token',
      name: 'login',
      summary: 'Sign in: a session token (JSON or form: username, password, remember_me; code with two-factor sign-in)',
      tags,
      access: 'public',
      body: SignIn,
      response: TokenResponse,
      errors: {
        401: 'Wrong user name or password; or, with two-factor sign-in, a code missing (SM_ERR_AUTH_CODE_REQUIRED) or wrong.',
        429: 'Too many failed sign-ins for this user or client: wait the Retry-After seconds.',
      },
    },
    async (ctx, { body }) => {
      return signIn(ctx, body, 'Successfully authenticated.')
    },
  )

  defineRoute(
    router,
    {
      method: 'post',
      path: '/auth/logout',
      name: 'logout',
      summary: 'Sign out: the session is revoked for good (also after a restart), and the cookies cleared',
      tags,
      access: 'user',
      session: true,
      response: success('LoggedOut', { message: z.string() }),
    },
    async (ctx) => {
      await app.bus.request('auth:logout', { token: presentedToken(ctx).token ?? '' })
      clearSessionCookies(ctx)
      return { status: 'success', message: 'Successfully logged out.' }
    },
  )
  // Only POST signs out: a link or an image on another site must not (a cookie goes with a GET).
  defineRoute(
    router,
    {
      method: 'get',
      path: '/auth/logout',
      name: 'logout_get',
      summary: 'Refused (405): sign out with POST',
      tags,
      access: 'public',
      errors: { 405: 'Sign out with POST: a GET must not end a session.' },
    },
    (ctx) => {
      ctx.set('Allow', 'POST')
      throw new SmError('SM_ERR_AUTH_LOGOUT_NEEDS_POST', {})
    },
  )

  defineRoute(
    router,
    {
      method: 'get',
      path: '/auth/me',
      name: 'me',
      summary: 'Who the caller is',
      tags,
      access: 'user',
      response: authCommands['auth:verify'].reply.pick({ username: true, role: true, via: true }),
    },
    (ctx) => {
      const { username, role, via } = currentUser(ctx)
      return { username, role, via }
    },
  )

  defineRoute(
    router,
    {
      method: 'get',
      path: '/api/setup/status',
      name: 'setup_status',
      summary: 'Whether first-run setup is needed (no user exists)',
      tags: ['Setup'],
      access: 'public',
      response: z.object({ needs_setup: z.boolean() }),
    },
    async () => ({ needs_setup: await app.bus.request('auth:setup_needed', {}) }),
  )

  defineRoute(
    router,
    {
      method: 'post',
      path: '/api/setup/create-first-user',
      name: 'setup',
      summary: 'Create the first admin and sign in (only while no user exists)',
      tags: ['Setup'],
      access: 'public',
      body: Credentials,
      response: TokenResponse.extend({ status: z.literal('success') }).meta({ id: 'SetupDone' }),
      errors: {
        409: 'Setup is done: a user exists already.',
        422: 'The user name or password is not valid (`issues` or the message says what).',
      },
    },
    async (ctx, { body }) => {
      // Created and signed in as one step, with no sign-in limit: a setup never answers 429 after creating the admin.
      const session = await app.bus.request('auth:setup', {
        username: body.username,
        password: body.password,
        remember: body.remember_me,
      })
      setSessionCookies(ctx, session)
      return { status: 'success' as const, ...tokenBody(session, 'Admin account created and logged in successfully.') }
    },
  )
  return router
}
