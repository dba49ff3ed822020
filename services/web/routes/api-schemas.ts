import { z } from 'zod'
import { authCommands } from '../../auth/contract'
import { serversCommands } from '../../servers/contract'
import { settingsCommands } from '../../settings/contract'

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

export const ServerName = z.object({ name: z.string().min(1).max(200) })
/** The 404 of a route about one server (the servers contract's words, which its derived routes use). */
export { NO_SERVER } from '../../servers/contract'

export const ServerRecord = serversCommands['servers:add'].reply.meta({ id: 'ServerRecord' })
export const RunStatus = serversCommands['servers:status'].reply.meta({ id: 'RunStatus' })
export const BackupFile = serversCommands['servers:update'].reply.shape.backup
  .unwrap()
  .element.meta({ id: 'BackupFile' })
// The plugins service depends on the web (its plugins' routes), so the web may not import its
// contract: its record is described here, as the fields a client may rely on (loose: more may come).
export const PluginRecord = z
  .looseObject({
    name: z.string(),
    enabled: z.boolean(),
    version: z.string(),
    author: z.string(),
    description: z.string(),
    source: z.string(),
    path: z.string(),
    state: z.enum(['disabled', 'loaded', 'failed', 'invalid', 'missing']),
    error: z.looseObject({ code: z.string().optional(), message: z.string() }).optional(),
    hookFailures: z.number(),
  })
  .meta({ id: 'PluginRecord' })
export const SettingChange = settingsCommands['settings:set'].reply.meta({ id: 'SettingChange' })
export const User = authCommands['auth:list_users'].reply.element.meta({ id: 'User' })
export const ApiToken = authCommands['auth:list_tokens'].reply.element.meta({ id: 'ApiToken' })
