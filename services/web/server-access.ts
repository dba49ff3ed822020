import { SmError } from '../../kernel/errors'
import { heldToGrants, type Identity, type Role, type ServerRight, seesServer } from '../auth/contract'
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

/** The actor a web request acts as (app.ts): a task it began is its own. */
const actorOf = (user: Identity) => `http:${user.username}`

/**
 * A command's reply as a thin route gives it to `user`: tasks are not about one server, so an
 * account held to grants sees only those it began (another's is not found).
 */
export function narrowReply(command: string, reply: unknown, user: Identity | undefined): unknown {
  if (!user || !heldToGrants(user)) return reply
  if (command === 'tasks:list') return (reply as { owner: string }[]).filter((t) => t.owner === actorOf(user))
  if (command === 'tasks:get') {
    const task = reply as { id: string; owner: string }
    if (task.owner !== actorOf(user)) throw new SmError('SM_ERR_TASK_NOT_FOUND', { id: task.id })
  }
  return reply
}

/** Whether a task's messages on the stream may reach `user` (its own, for an account held to grants). */
export function seesTask(user: Identity, owner: string | undefined): boolean {
  return !heldToGrants(user) || owner === actorOf(user)
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
    /** DELETE /api/schedules/:id names no server: every server's reach only. */
    removeSchedule: reachRole(user) === 'admin',
    config: may('settings', 'moderator'),
    update: may('settings', 'admin'),
    /** Edit how it runs, remove it, and who has access to it: every server's reach only. */
    admin: may(undefined, 'admin'),
    players: may('players', 'admin'),
  }
}
