import { z } from 'zod'

/**
 * What a command's contract says about the doors it is offered through (issue 33: one
 * declaration per operation), as plain data beside its payload and reply: the web service
 * derives its thin HTTP routes from `http`, the plugins service `this.api`'s operations from
 * `api`, the owning service its host routing from `host`. The kernel only carries them.
 */
export interface CommandDoors {
  /** Its routes: usually one; several where the same command is offered under several paths (one per list, say). */
  readonly http?: HttpDoor | readonly HttpDoor[]
  readonly api?: ApiDoor
  readonly host?: HostRoute
}

/** Who may call a route: a role (that role or higher, signed in) or anyone. */
export type DoorAccess = 'public' | 'user' | 'moderator' | 'admin'

/**
 * What an admin may grant an account on one server (issue 34: per-server access). An account
 * with a grant is held to its grants: on a granted server it may do what its rights there cover,
 * on any other server nothing; an account with none keeps its role's reach on every server. Any
 * right includes `view`. `files` (writing the server's files, updating its release) changes the
 * program the server runs, which runs as the manager's own OS user: it is the machine's trust,
 * whatever server it is granted on.
 */
export const SERVER_RIGHTS = [
  'view',
  'console',
  'power',
  'players',
  'backups',
  'schedules',
  'files',
  'settings',
] as const
export type ServerRight = (typeof SERVER_RIGHTS)[number]

/**
 * A thin route: validate, one bus request, answer `{ status: 'success', ... }`. Its payload is
 * the path parameters, then the query (a GET) or the body, then `fixed`.
 */
export interface HttpDoor {
  readonly method: 'get' | 'post' | 'put' | 'patch' | 'delete'
  /** Under `/api`, in Koa's form: `/servers/:name/status`. */
  readonly path: string
  /** The route's name (its OpenAPI operationId). */
  readonly name: string
  readonly summary: string
  readonly tags: readonly string[]
  readonly access: DoorAccess
  /**
   * A route on one server (its path's `:name`): the right an account held to its grants needs on
   * that server instead of `access`'s role (see SERVER_RIGHTS). None on a `/servers/:name` path:
   * only accounts with every server's reach may call it.
   */
  readonly right?: ServerRight
  /** Only a signed-in session, never an API token (account management: see the route's `session`). */
  readonly session?: true
  /**
   * The payload field that takes the signed-in caller's user name: a route of the caller's own
   * account, never one the client names (the field is not part of the input).
   */
  readonly caller?: string
  /** The success status (default 200). */
  readonly status?: number
  /** The error statuses its work answers, each with when (as a route's `errors`). */
  readonly errors?: Readonly<Record<number, string>>
  /**
   * The payload field of each path parameter whose name differs (`{ name: 'serverName' }`);
   * any other path parameter is the payload field of its name. Each is a non-empty string of at
   * most `paramMax` characters (default 200; a record: each parameter's, 200 for one it omits).
   */
  readonly params?: Readonly<Record<string, string>>
  readonly paramMax?: number | Readonly<Record<string, number>>
  /**
   * The query (a GET) or the body: a schema of the fields a client sends, when they are not
   * the payload's own fields as they are (limits, defaults, a query's strings to coerce).
   * None: the payload's fields but the path's and the fixed ones, as the payload declares them.
   */
  readonly input?: z.ZodObject
  /**
   * A file the route takes as `multipart/form-data`: its part `field` (documented as
   * `description`), kept under the name the client gave it (made safe: an archive's type is read
   * from it), its path the payload's field `to`. The input's fields are then the form's other
   * fields (strings). The file goes when the request ends.
   */
  readonly upload?: { readonly field: string; readonly to: string; readonly description: string }
  /** A field of the input under another name in the payload (`{ stop: 'stopStart' }`). */
  readonly rename?: Readonly<Record<string, string>>
  /** Fields the payload always has over what the client sent. */
  readonly fixed?: Readonly<Record<string, unknown>>
  /** Fields of a spread reply under another name in the body (`{ warningCode: 'warning_code' }`). */
  readonly replyNames?: Readonly<Record<string, string>>
  /** The reply under this key of the body (`{ status: 'success', run: reply }`); none: its fields spread. */
  readonly key?: string
  /** The body's `message` beside the reply, `{field}` a payload field's value (`"Event '{event}' triggered."`). */
  readonly message?: string
  /**
   * The reply is a task begun (`{ taskId }`): answered `{ status: 'accepted', message, task_id }`
   * (the document's `Accepted`: follow it with GET /api/tasks/{id}), always with status 202.
   */
  readonly task?: true
  /** The reply may hold a server's environment or arguments: answered without their secret-looking values. */
  readonly withoutServerSecrets?: true
  /** The success body's name among the OpenAPI document's components. */
  readonly response: string
}

/**
 * A `this.api` operation that is this one command (plugins/api-commands.ts derives it): its
 * arguments, in order, are payload fields, and it resolves to the reply (a change: with
 * `status: 'success'` and its `message`). Declared with `command()`, its literal type is kept,
 * from which `PluginApi` types the operation.
 */
export interface ApiDoor {
  readonly name: string
  /** Its other names (the seed's snake_case ones). */
  readonly aliases?: readonly string[]
  readonly kind: 'read' | 'change'
  readonly params: readonly ApiParam[]
  /** What a change resolves to besides its reply: `{ status: 'success', message }`, `{name}` a payload field. */
  readonly message?: string
  readonly description: string
}

/**
 * A positional argument: a payload field of its name, or `field` under the name a plugin sees
 * (`as`: `serverName` for the payload's `name`), checked by `schema` where the payload's own
 * field's is not the check (`default`: how the reference shows a default the manager applies).
 */
export type ApiParam =
  | string
  | {
      readonly field: string
      readonly as?: string
      readonly schema?: z.ZodType
      readonly default?: string
    }

/**
 * A yes/no field of a query or a form (whose values are strings): `'true'` or `'false'`, none
 * meaning `'false'`, read as a boolean.
 */
export const queryFlag = () =>
  z
    .enum(['true', 'false'])
    .default('false')
    .transform((flag) => flag === 'true')

/** A door's message with each `{field}` the payload's value of that field. */
export function doorMessage(template: string, payload: Readonly<Record<string, unknown>>): string {
  return template.replace(/\{(\w+)\}/g, (_, field: string) => String(payload[field]))
}

/** How the servers service routes a command for a server on another host. */
export interface HostRoute {
  /** Answered here whatever the payload names (about this manager). */
  readonly here?: true
  /** It only reads there: nothing recorded, no facts to take in after it. */
  readonly reads?: true
  /** The payload field naming a file of this machine, sent there first. */
  readonly sends?: string
}
