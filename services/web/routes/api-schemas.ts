import { z } from 'zod'
import { ROLES } from '../../auth/contract'
import { PROFILE_NAMES } from '../../servers/contract'

// The success bodies of the JSON API, for its OpenAPI document. Records are loose objects: they
// list the fields a client may rely on, and a field added later does not break the document.
// test/services/web/openapi.test.ts checks real answers against them.

const when = z.string().meta({ description: 'ISO 8601, UTC' })
const maybe = <T extends z.ZodType>(schema: T) => schema.nullable().optional()

/** `{ status: 'success', ...fields }`, named in the document's components. */
export function success<T extends z.ZodRawShape>(id: string, shape: T) {
  return z.object({ status: z.literal('success'), ...shape }).meta({ id })
}

export const Role = z.enum(ROLES)

export const ServerName = z.object({ name: z.string().min(1).max(200) })
/** The 404 of a route about one server (the servers contract's words, which its derived routes use). */
export { NO_SERVER } from '../../servers/contract'

export const ServerRecord = z
  .looseObject({
    name: z.string(),
    dir: z.string(),
    profile: z.enum(PROFILE_NAMES),
    command: z.string(),
    args: z.array(z.string()),
    worldDir: maybe(z.string()),
    readyLine: maybe(z.string()).meta({
      description: "the console message that says it is ready (over its profile's)",
    }),
    sayCommand: maybe(z.string()),
    configFiles: maybe(z.array(z.string())),
    hotBackup: maybe(z.object({ off: z.array(z.string()), flush: z.array(z.string()), on: z.array(z.string()) })),
    hotBackupDone: maybe(z.string()).meta({ description: 'the console message that says the flush is done' }),
    errorLines: maybe(z.array(z.string())),
    chatLine: maybe(z.string()).meta({ description: "a player's chat message (over its profile's)" }),
    addedAt: when,
    host: maybe(z.string()).meta({ description: 'the host agent it lives on (GET /api/hosts); none: this machine' }),
  })
  .meta({ id: 'ServerRecord' })

export const PlayerList = z
  .looseObject({
    online: z.number().int(),
    max: maybe(z.number().int()).meta({ description: 'the most players the game takes, when it said' }),
    names: z.array(z.string()),
  })
  .meta({ id: 'PlayerList' })

export const ServerSample = z
  .looseObject({
    t: z.number().meta({ description: 'when, in ms since the epoch' }),
    cpu: z.number().meta({ description: 'CPU use of the game (and what its main thread started), % of one core' }),
    rss: z.number().meta({ description: 'resident memory, bytes' }),
    disk: z.number().optional().meta({ description: "the server's directory on disk, bytes (after the first walk)" }),
    uptime_s: z.number(),
  })
  .meta({ id: 'ServerSample', description: "its supervisor's last resource sample" })

export const RunStatus = z
  .looseObject({
    status: z.string().meta({ description: 'stopped, starting, running, stopping, crashed, ...' }),
    since: when,
    pid: maybe(z.number()),
    startedAt: maybe(when),
    adopted: z.boolean(),
    restarts: z.number(),
    exitCode: z.number().nullable(),
    signal: z.string().nullable(),
    players: PlayerList.optional().meta({
      description:
        "who is online, while the manager follows the running server and knows (its profile's join, leave and list lines)",
    }),
    metrics: ServerSample.optional(),
  })
  .meta({ id: 'RunStatus' })

export const BackupFile = z
  .looseObject({ file: z.string(), kind: z.string(), bytes: z.number(), createdAt: when })
  .meta({ id: 'BackupFile' })

export const Schedule = z
  .looseObject({
    id: z.string(),
    server: z.string(),
    cron: z.string(),
    action: z.string(),
    command: maybe(z.string()),
    timezone: maybe(z.string()),
    addedAt: when,
    nextRun: maybe(when),
  })
  .meta({ id: 'Schedule' })

export const Task = z
  .looseObject({
    id: z.string(),
    name: z.string(),
    owner: z.string(),
    state: z.string().meta({ description: 'queued, running, succeeded, failed, cancelled' }),
    percent: maybe(z.number()),
    message: maybe(z.string()),
    result: z.unknown().optional(),
    error: maybe(z.looseObject({ code: z.string(), message: z.string() })),
    createdAt: when,
    finishedAt: maybe(when),
  })
  .meta({ id: 'Task' })

const PluginError = z.looseObject({ code: z.string().optional(), message: z.string() })

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
    error: PluginError.optional(),
    hookFailures: z.number(),
  })
  .meta({ id: 'PluginRecord' })

export const DeliveryReport = z
  .looseObject({
    event: z.string(),
    listeners: z.number(),
    delivered: z.number(),
    skipped: z.boolean(),
    failed: z.array(z.unknown()),
  })
  .meta({ id: 'DeliveryReport' })

export const SettingChange = z
  .looseObject({
    key: z.string(),
    value: z.unknown(),
    previous: z.unknown().optional(),
    mode: z.string(),
    removed: z.array(z.string()),
  })
  .meta({ id: 'SettingChange' })

export const StoredEvent = z
  .looseObject({ seq: z.number(), time: when, type: z.string(), actor: z.string(), payload: z.unknown() })
  .meta({ id: 'StoredEvent' })

export const User = z.looseObject({ username: z.string(), role: Role, createdAt: when }).meta({ id: 'User' })

export const ApiToken = z
  .looseObject({
    id: z.string(),
    name: z.string(),
    role: Role,
    owner: z.string(),
    createdAt: when,
    expiresAt: maybe(when),
  })
  .meta({ id: 'ApiToken' })
