import { z } from 'zod'
import { authCommands } from '../../auth/contract'
import { serversCommands } from '../../servers/contract'
import { settingsCommands } from '../../settings/contract'
import type { WebApp } from '../app'

// The success bodies of the JSON API, for its OpenAPI document. The records in them are the
// replies their commands declare (each service's contract, declared once), named here among the
// document's components. test/services/web/openapi.test.ts checks real answers against them.

/** `{ status: 'success', ...fields }`, named in the document's components. */
export function success<T extends z.ZodRawShape>(id: string, shape: T) {
  return z.object({ status: z.literal('success'), ...shape }).meta({ id })
}

/** The answer of work that runs as a task (202). */
export const Accepted = z
  .object({ status: z.literal('accepted'), message: z.string(), task_id: z.string() })
  .meta({ id: 'Accepted', description: 'The work runs as a task: follow GET /api/tasks/{id} or the task:<id> topic.' })

/** The 404 of a route about one server (the servers contract's words, which its derived routes use). */
export { NO_SERVER } from '../../servers/contract'

export const RunStatus = serversCommands['servers:status'].reply.meta({ id: 'RunStatus' })
const components = new WeakMap<z.ZodType, z.ZodType>()

/**
 * The reply `command` declares, named `id` in the document's components: read from the web's
 * kernel's catalogue, for a service the web may not import (the plugins service depends on it).
 * Its element for a list. `z.unknown()` where no service declares it.
 */
export function declaredReply(app: WebApp, command: string, id: string): z.ZodType {
  const reply = app.bus.catalogue.commands().find((entry) => entry.name === command)?.spec.reply
  if (!reply) return z.unknown()
  const record = reply instanceof z.ZodArray && reply.element instanceof z.ZodType ? reply.element : reply
  const named = components.get(record) ?? record.meta({ id })
  components.set(record, named)
  return named
}
export const SettingChange = settingsCommands['settings:set'].reply.meta({ id: 'SettingChange' })
export const User = authCommands['auth:list_users'].reply.element.meta({ id: 'User' })
export const ApiToken = authCommands['auth:list_tokens'].reply.element.meta({ id: 'ApiToken' })
