import type Router from '@koa/router'
import { z } from 'zod'
import { queryFlag, SmError } from '../../../kernel'
import { REDACTED } from '../../../lib/secrets'
import { settingsCommands } from '../../settings/contract'
import type { WebApp } from '../app'
import { currentUser, defineRoute } from '../route'
import { SettingChange, success } from './api-schemas'

/** The global settings' routes that do more than one bus request: one read (a secret revealed only to a session), one set (the redaction placeholder refused). */
export function settingRoutes(app: WebApp, router: Router): void {
  const { bus } = app
  const settings = ['Settings']
  defineRoute(
    router,
    {
      method: 'get',
      path: '/settings/:key',
      name: 'get_setting',
      summary:
        'One global setting (secrets redacted; ?reveal=true shows a secret to an admin signed in with a session, not an API token)',
      tags: settings,
      access: 'admin',
      query: z.object({ reveal: queryFlag() }),
      response: success('SettingValue', { key: z.string(), value: z.unknown(), secret: z.boolean() }),
      errors: {
        403: 'revealing a secret needs a signed-in session, not an API token',
        404: 'No setting of that key.',
      },
    },
    async (ctx, { params, query }) => {
      const { reveal } = query
      // Reading a secret is a person's explicit act: a script's token never reveals one.
      if (reveal && currentUser(ctx).via === 'token')
        throw new SmError('SM_ERR_AUTH_FORBIDDEN', {
          role: `${currentUser(ctx).role} (API token)`,
          required: 'a signed-in session to reveal a secret',
        })
      const reply = await bus.request(
        'settings:get',
        reveal ? { key: params.key } : { key: params.key, redact: 'mask' },
      )
      if (!reply.found) throw new SmError('SM_ERR_SETTINGS_NOT_FOUND', { key: params.key })
      return { status: 'success', key: params.key, value: reply.value, secret: reply.secret === true }
    },
  )
  defineRoute(
    router,
    {
      method: 'put',
      path: '/settings/:key',
      name: 'set_setting',
      summary:
        'Set a global setting (validated; the setting_update hooks run; secret: true makes the key secret for good)',
      tags: settings,
      access: 'admin',
      body: settingsCommands['settings:set'].payload.pick({ value: true, secret: true }),
      response: success('SettingSet', { message: z.string(), change: SettingChange }),
      errors: {
        404: 'No setting of that key (outside custom.*, only declared settings exist).',
        409: "A plugin's before_setting_update hook cancelled the change.",
        507: 'The disk that holds the data directory is full: nothing was changed.',
      },
    },
    async (_ctx, { params, body }) => {
      // A secret is shown redacted; saving the placeholder back would overwrite the secret with it.
      if (body.value === REDACTED)
        throw new SmError('SM_ERR_WEB_VALIDATION', {
          summary: `body 'value': '${REDACTED}' is the placeholder shown for a secret, not a value`,
          issues: [{ where: 'body', path: 'value', message: 'the redaction placeholder cannot be stored' }],
        })
      const change = await bus.request('settings:set', {
        key: params.key,
        value: body.value,
        mode: 'replace',
        ...(body.secret === true ? { secret: true } : {}),
      })
      return { status: 'success', message: `Setting '${params.key}' updated.`, change }
    },
  )
}
