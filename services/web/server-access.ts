import { SmError } from '../../kernel/errors'
import { heldToGrants, type Identity, type Role, type ServerRight, seesServer } from '../auth/contract'
import { adminOnlyCommand } from './admin-commands'
import { admit } from './route'

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

/** A whole task id (a host's: `<host>/<id>`). */
const TASK_ID = /^([\w.-]+\/)?[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** What each schedule action does, as the right it takes: a schedule may not do what its maker may not. */
const SCHEDULED: Readonly<Record<string, ServerRight>> = {
  backup: 'backups',
  restart: 'power',
  start: 'power',
  stop: 'power',
  command: 'console',
}

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
  if (command === 'tasks:get' && !TASK_ID.test(String(payload.id)))
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
  const needs = SCHEDULED[String(payload.action)]
  if (!needs) throw new SmError('SM_ERR_AUTH_HELD_TO_SERVERS', { required: 'admin' })
  if (!user.servers?.[server]?.includes(needs))
    throw new SmError('SM_ERR_AUTH_NO_SERVER_RIGHT', { server, right: needs })
  const blocked = payload.action === 'command' ? adminOnlyCommand(String(payload.command ?? '')) : undefined
  if (blocked) throw new SmError('SM_ERR_WEB_COMMAND_BLOCKED', { command: blocked })
}

/** The role whose reach `user` has on what names no server: its own, or, held to grants, a `user`'s. */
export function reachRole(user: Identity): Role {
  return heldToGrants(user) ? 'user' : user.role
}

/**
 * Whether `user` may call a route of `role` on `server` that takes `right` there (no right: only
 * with every server's reach), exactly as the route's guard judges it: for pages, which controls to offer.
 */
export function mayOn(user: Identity, server: string, right: ServerRight | undefined, role: Role): boolean {
  try {
    admit(user, role, { name: server, right })
    return true
  } catch {
    return false
  }
}

/** The server page's controls `user` may use on `server`, each as its route's guard would judge it. */
export function serverPageControls(user: Identity, server: string) {
  const may = (right: ServerRight | undefined, role: Role) => mayOn(user, server, right, role)
  return {
    files: may('files', 'admin'),
    eula: may('settings', 'admin'),
    power: may('power', 'moderator'),
    console: may('console', 'moderator'),
    backups: may('backups', 'moderator'),
    /** Restore and delete backups. */
    restore: may('backups', 'admin'),
    properties: may('settings', 'moderator'),
    saveProperties: may('settings', 'admin'),
    schedules: may('schedules', 'moderator'),
    addSchedule: may('schedules', 'admin'),
    removeSchedule: may('schedules', 'admin'),
    config: may('settings', 'moderator'),
    update: may('files', 'admin'),
    /** Edit how it runs, remove it, and who has access to it: every server's reach only. */
    admin: may(undefined, 'admin'),
    players: may('players', 'admin'),
  }
}
