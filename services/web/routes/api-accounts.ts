import type Router from '@koa/router'
import { z } from 'zod'
import { SmError } from '../../../kernel'
import { authCommands, roleAtLeast } from '../../auth/contract'
import type { WebApp } from '../app'
import { currentUser, defineRoute } from '../route'
import { ApiToken, success, User } from './api-schemas'

/** The account routes that do more than one bus request: a password (your own or, for an admin, anyone's) and API tokens (each caller's own). */
export function accountRoutes(app: WebApp, router: Router): void {
  const { bus } = app
  const users = ['Users']
  defineRoute(
    router,
    {
      method: 'put',
      path: '/users/:username/password',
      name: 'set_user_password',
      summary:
        "Set a user's password: your own with current_password; an admin anyone else's without it. Their sessions end.",
      tags: users,
      session: true,
      access: 'user',
      paramMax: 80,
      body: z.object({
        password: z.string().min(1).max(1024),
        current_password: z.string().max(1024).optional().meta({ description: 'required for your own password' }),
      }),
      response: success('UserPasswordSet', { user: User }),
      errors: {
        403: "only admins set another user's password",
        404: 'No user of that name.',
        429: 'Too many wrong current passwords: wait (Retry-After).',
      },
    },
    async (ctx, { params, body }) => {
      const user = currentUser(ctx)
      if (user.username.toLowerCase() === params.username.toLowerCase())
        return {
          status: 'success',
          user: await bus.request('auth:change_password', {
            username: user.username,
            current: body.current_password ?? '',
            password: body.password,
            client: ctx.ip,
          }),
        }
      if (user.role !== 'admin') throw new SmError('SM_ERR_AUTH_FORBIDDEN', { role: user.role, required: 'admin' })
      return {
        status: 'success',
        user: await bus.request('auth:reset_password', { username: params.username, password: body.password }),
      }
    },
  )
  defineRoute(
    router,
    {
      method: 'get',
      path: '/tokens',
      name: 'list_tokens',
      summary: 'API tokens (admins: all; others: their own)',
      tags: users,
      session: true,
      access: 'user',
      response: success('TokenList', { tokens: z.array(ApiToken) }),
    },
    async (ctx) => {
      const user = currentUser(ctx)
      const all = await bus.request('auth:list_tokens', {})
      return {
        status: 'success',
        tokens: user.role === 'admin' ? all : all.filter((t) => t.owner.toLowerCase() === user.username.toLowerCase()),
      }
    },
  )
  defineRoute(
    router,
    {
      method: 'post',
      path: '/tokens',
      name: 'create_token',
      summary: "Create an API token acting for the caller (its role at most the caller's); the token is shown once",
      tags: users,
      session: true,
      access: 'user',
      body: z.object({
        name: z.string().trim().min(1).max(80),
        role: authCommands['auth:create_token'].payload.shape.role,
        expires_days: z.number().int().min(1).max(3650).optional(),
      }),
      status: 201,
      response: success('TokenCreated', { message: z.string(), token: z.string(), record: ApiToken }),
      errors: {
        403: "an API token cannot create tokens, nor a role above the caller's",
        404: "The caller's account was deleted meanwhile.",
      },
    },
    async (ctx, { body }) => {
      const user = currentUser(ctx)
      if (!roleAtLeast(user.role, body.role))
        throw new SmError('SM_ERR_AUTH_ROLE_TOO_HIGH', { role: body.role, owner: user.username, ownerRole: user.role })
      const created = await bus.request('auth:create_token', {
        name: body.name,
        role: body.role,
        owner: user.username,
        ownerId: user.userId,
        expiresDays: body.expires_days,
      })
      return {
        status: 'success',
        message: 'Copy the token now: it is not shown again.',
        token: created.token,
        record: created.record,
      }
    },
  )
  defineRoute(
    router,
    {
      method: 'delete',
      path: '/tokens/:id',
      name: 'revoke_token',
      summary: 'Revoke an API token (its owner or an admin)',
      tags: users,
      session: true,
      access: 'user',
      paramMax: 40,
      response: success('TokenRevoked', { token: ApiToken }),
      errors: { 404: 'No API token with that id (of the caller, unless an admin).' },
    },
    async (ctx, { params }) => {
      const user = currentUser(ctx)
      const token = (await bus.request('auth:list_tokens', {})).find((t) => t.id === params.id)
      if (token && user.role !== 'admin' && token.owner.toLowerCase() !== user.username.toLowerCase())
        throw new SmError('SM_ERR_AUTH_TOKEN_NOT_FOUND', { id: params.id })
      return { status: 'success', token: await bus.request('auth:revoke_token', { id: params.id }) }
    },
  )
}
