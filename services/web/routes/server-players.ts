import type Router from '@koa/router'
import { z } from 'zod'
import type { AccessListName } from '../../servers/contract'
import type { WebApp } from '../app'
import { defineRoute } from '../route'
import { NO_SERVER, ServerName, success } from './api-schemas'

const when = z.string().meta({ description: 'ISO 8601, UTC' })

const PlayerRecord = z
  .looseObject({
    name: z.string(),
    id: z.string().optional().meta({ description: "the last id the game printed (Bedrock's xuid, Java's UUID)" }),
    firstSeen: when,
    lastSeen: when,
    joins: z.number().int(),
    playedMs: z.number().int().meta({ description: 'time online in milliseconds, the session under way included' }),
    online: z.boolean(),
    onlineSince: when.optional(),
  })
  .meta({ id: 'PlayerRecord' })

const AccessEntry = z
  .looseObject({
    name: z.string().optional().meta({ description: 'from the player history where the file has only ids' }),
    id: z.string().optional().meta({ description: 'xuid or UUID, when the file has it' }),
  })
  .meta({ id: 'AccessEntry' })

const AccessChange = success('AccessChange', {
  message: z.string(),
  changed: z.boolean().meta({ description: 'false when there was nothing to do (already on the list, or not on it)' }),
  via: z.enum(['console', 'file']).meta({
    description:
      "the running game's console did it, or the manager edited the file (the game stopped, or it has no console command for it)",
  }),
  players: z.array(AccessEntry).meta({ description: 'the list after the change' }),
  warning: z.string().optional().meta({
    description:
      'done, with something to know (the running game did not reload the edited file, or the fact was not recorded)',
  }),
})

/** Each list, named alike in its path, its summaries and the service's calls. */
const LISTS: readonly { list: AccessListName; files: string }[] = [
  { list: 'allowlist', files: "Bedrock's allowlist.json, Java's whitelist.json" },
  { list: 'operators', files: "Bedrock's permissions.json, Java's ops.json" },
]
const UNKNOWN_LIST = "The server's profile knows no such list (a generic server), or the player name cannot be one."

/**
 * Players over the API (issue 20, item 3): everyone who played on a server (a user's read), and
 * the allowlist and operators, read and changed as content (admins).
 */
export function serverPlayerRoutes(router: Router, app: WebApp): void {
  const { bus } = app
  const tags = ['Servers']
  defineRoute(
    router,
    {
      method: 'get',
      path: '/servers/:name/players/history',
      name: 'server_player_history',
      summary:
        'Everyone who joined the server while a manager followed it: last id, first and last seen, joins, time played, online now',
      tags,
      access: 'user',
      params: ServerName,
      response: success('PlayerHistory', { players: z.array(PlayerRecord) }),
      errors: { 404: NO_SERVER },
    },
    async (_ctx, { params }) => ({
      status: 'success',
      players: await bus.request('servers:player_history', { name: params.name }),
    }),
  )
  for (const { list, files } of LISTS) {
    defineRoute(
      router,
      {
        method: 'get',
        path: `/servers/:name/${list}`,
        name: `server_${list}`,
        summary: `The server's ${list}, as its file says (${files})`,
        tags,
        access: 'admin',
        params: ServerName,
        response: success(`${list[0]?.toUpperCase()}${list.slice(1)}List`, { players: z.array(AccessEntry) }),
        errors: {
          404: NO_SERVER,
          422: "The server's profile knows no such list (a generic server), or its file is not a JSON list.",
        },
      },
      async (_ctx, { params }) => ({
        status: 'success',
        players: await bus.request('servers:access_list', { name: params.name, list }),
      }),
    )
    const refusals = {
      404: NO_SERVER,
      409: "A player the file names by id (Java's UUID, Bedrock's xuid) who never joined while a manager ran (SM_ERR_SERVER_PLAYER_ID_UNKNOWN), or a plugin vetoed the change (SM_ERR_SERVER_CHANGE_CANCELLED).",
      422: `${UNKNOWN_LIST} Or the running game refused it (SM_ERR_SERVER_ACCESS_REFUSED, with its reply lines in \`reply\`).`,
    }
    defineRoute(
      router,
      {
        method: 'post',
        path: `/servers/:name/${list}`,
        name: `add_to_${list}`,
        summary: `Add a player to the ${list}: by the console while the server runs, else in its file`,
        tags,
        access: 'admin',
        params: ServerName,
        body: z.object({ player: z.string().trim().min(1).max(64).meta({ description: "the player's name" }) }),
        response: AccessChange,
        errors: refusals,
      },
      async (_ctx, { params, body }) => ({
        status: 'success',
        ...(await bus.request('servers:access_change', {
          name: params.name,
          list,
          change: 'add',
          player: body.player,
        })),
      }),
    )
    defineRoute(
      router,
      {
        method: 'delete',
        path: `/servers/:name/${list}/:player`,
        name: `remove_from_${list}`,
        summary: `Remove a player from the ${list}: by the console while the server runs, else in its file`,
        tags,
        access: 'admin',
        params: ServerName.extend({ player: z.string().min(1).max(64) }),
        response: AccessChange,
        errors: refusals,
      },
      async (_ctx, { params }) => ({
        status: 'success',
        ...(await bus.request('servers:access_change', {
          name: params.name,
          list,
          change: 'remove',
          player: params.player,
        })),
      }),
    )
  }
}
