import type { Layer } from '@koa/router'
import { SmError } from '../../kernel/errors'
import { heldToGrants, type Identity, type Role, type ServerRight, seesServer } from '../auth/contract'
import { parseHostTaskId } from '../bridge/contract'
import type { ScheduleAction } from '../servers/contract'
import { adminOnlyCommand } from './admin-commands'
import { admit, type RouteSpec, refusal, specOf } from './route'

/**
 * What an account held to its server grants (issue 34) gets of answers that are not about one
 * server: the routes on one server check its rights there (route.ts); lists, counts, streams and
 * tasks are narrowed here to what it may see. Every other account gets them whole.
 */

/** The items of a list of servers (anything with a `name`) that `user` may see. */
export function visibleServers<T extends { readonly name: string }>(user: Identity, servers: readonly T[]): T[] {
  return heldToGrants(user) ? servers.filter((s) => seesServer(user, s.name)) : [...servers]
}

/**
 * A command's reply as a thin route gives it to `user`: an account held to grants sees the tasks
 * about the servers it sees (another is not found), none about no server (an install of a new one).
 */
export function narrowReply(
  command: string,
  payload: Readonly<Record<string, unknown>>,
  reply: unknown,
  user: Identity | undefined,
): unknown {
  if (!user || !heldToGrants(user)) return reply
  if (command === 'tasks:list') return (reply as { server?: string }[]).filter((t) => seesTask(user, t.server))
  if (command === 'tasks:get') {
    const task = reply as { server?: string }
    // Not found by the id asked for: the task's own whole id would tell it exists.
    if (!seesTask(user, task.server)) throw new SmError('SM_ERR_TASK_NOT_FOUND', { id: String(payload.id) })
  }
  return reply
}

/** Whether a task about `server` (undefined: about none) may reach `user`. */
export function seesTask(user: Identity, server: string | undefined): boolean {
  return !heldToGrants(user) || (server !== undefined && seesServer(user, server))
}

/** A task id as the task manager makes it (randomUUID). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** A whole task id: this machine's, or a host's (`<host>/<id>`, split as the bridge splits it). */
function wholeTaskId(id: string): boolean {
  return UUID.test(parseHostTaskId(id)?.id ?? id)
}

/** What each schedule action does, as the right it takes: a schedule may not do what its maker may not. */
const SCHEDULED: Readonly<Record<string, ServerRight>> = {
  backup: 'backups',
  restart: 'power',
  command: 'console',
} satisfies Record<ScheduleAction, ServerRight>

/**
 * Refuses what an account held to grants may not ask through a route its right admits: a
 * schedule whose action another right covers (a restart needs `power`, a command `console` and
 * no admin-only word), or an action it cannot tell.
 */
export function checkRequest(
  command: string,
  payload: Readonly<Record<string, unknown>>,
  user: Identity | undefined,
): void {
  if (!user || !heldToGrants(user)) return
  // A task by its whole id only: the start of one is matched against every task, the hidden ones
  // too, and an answer that several fit (or one) would name them.
  if (command === 'tasks:get' && !wholeTaskId(String(payload.id)))
    throw new SmError('SM_ERR_TASK_NOT_FOUND', { id: String(payload.id) })
  if (command !== 'servers:schedule_add' && command !== 'servers:schedule_edit') return
  const server = String(payload.name)
  // What it will do is judged: an edit by such an account names its action (the page sends the one it shows).
  if (payload.action === undefined)
    throw new SmError('SM_ERR_WEB_VALIDATION', {
      summary: "body 'action': name the schedule's action (backup, restart, command…)",
      issues: [{ where: 'body', path: 'action', message: 'required for an account held to its server grants' }],
    })
  // And the command it will send, not one kept from before: an edit to `command` names it.
  if (payload.action === 'command' && payload.command === undefined)
    throw new SmError('SM_ERR_WEB_VALIDATION', {
      summary: "body 'command': name the console command the schedule sends",
      issues: [{ where: 'body', path: 'command', message: 'required for an account held to its server grants' }],
    })
  const action = String(payload.action)
  const needs = Object.hasOwn(SCHEDULED, action) ? SCHEDULED[action] : undefined
  if (!needs) throw new SmError('SM_ERR_AUTH_HELD_TO_SERVERS', { required: 'admin' })
  admit(user, 'user', { name: server, right: needs })
  const blocked = payload.action === 'command' ? adminOnlyCommand(String(payload.command ?? '')) : undefined
  if (blocked) throw new SmError('SM_ERR_WEB_COMMAND_BLOCKED', { command: blocked })
}

/** The role whose reach `user` has on what names no server: its own, or, held to grants, a `user`'s. */
export function reachRole(user: Identity): Role {
  return heldToGrants(user) ? 'user' : user.role
}

/** Each control of the server page, as the route it calls: it is offered to whom that route's guard admits. */
const CONTROL_ROUTES = {
  files: 'page_files',
  eula: 'accept_server_eula',
  power: 'start_server',
  console: 'send_command',
  backups: 'list_backups',
  /** Restore and delete backups. */
  restore: 'restore_backup',
  properties: 'server_properties',
  saveProperties: 'set_server_properties',
  schedules: 'list_schedules',
  addSchedule: 'add_schedule',
  removeSchedule: 'remove_server_schedule',
  config: 'server_config',
  update: 'update_server',
  /** Edit how it runs, remove it, and who has access to it: every server's reach only. */
  admin: 'remove_server',
  players: 'add_to_allowlist',
} as const

export type ServerControls = { readonly [K in keyof typeof CONTROL_ROUTES]: boolean }

/**
 * Whether a user may call a route on a server, judged from the route's own declaration (its
 * access and right, looked up by name among the core's routes) by its guard's `admit`: for pages,
 * which controls to offer, never a second table of who may do what.
 */
export class RouteJudge {
  readonly #layers: () => readonly Layer[]
  #specs: Map<string, RouteSpec> | undefined

  constructor(layers: () => readonly Layer[]) {
    this.#layers = layers
  }

  may(user: Identity, server: string, route: string): boolean {
    // Read once, on first use: the core's routes are all registered by then and do not change.
    this.#specs ??= new Map(
      this.#layers()
        .map(specOf)
        .flatMap((spec) => (spec?.name ? [[spec.name, spec] as const] : [])),
    )
    const spec = this.#specs.get(route)
    if (!spec) throw new Error(`a page offers the route '${route}', which no core route is named`)
    return spec.access === 'public' || !refusal(user, spec.access, { name: server, right: spec.right })
  }

  /** The server page's controls `user` may use on `server`. */
  serverControls(user: Identity, server: string): ServerControls {
    return Object.fromEntries(
      Object.entries(CONTROL_ROUTES).map(([control, route]) => [control, this.may(user, server, route)]),
    ) as { [K in keyof typeof CONTROL_ROUTES]: boolean }
  }
}
