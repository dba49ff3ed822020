import Router from '@koa/router'
import { z } from 'zod'
import {
  type Catalogue,
  type CommandName,
  type CommandPayload,
  type CommandSpec,
  doorMessage,
  type HttpDoor,
} from '../../../kernel'
import { withoutServerSecrets } from '../../../lib/server-secrets'
import type { WebApp } from '../app'
import { currentUser, defineRoute, hasBody, pathParamNames, uploadUnderItsName } from '../route'
import { checkRequest, narrowReply } from '../server-access'
import { Accepted } from './api-schemas'

/** One HTTP door a command declares (a command may declare several). */
export interface HttpCommand {
  readonly command: string
  readonly spec: CommandSpec
  readonly http: HttpDoor
}

/**
 * The commands that say they are offered over HTTP: read from the web service's kernel's
 * catalogue.
 */
export function httpCommands(catalogue: Catalogue): HttpCommand[] {
  return catalogue
    .commands()
    .flatMap(({ name, spec }) => [spec.doors?.http ?? []].flat().map((http) => ({ command: name, spec, http })))
}

/**
 * The thin routes of the JSON API ("validate, one bus request, answer"), each derived from its
 * command's declaration: access, path, statuses and documentation from its `http` door, the
 * payload's fields from its schema. Two routers, the most specific paths first: `fixed` (no path
 * parameter) goes before the hand-written routes, so `/plugins/trigger_event` is not taken for a
 * plugin's name; `withParams` after them, which win where a path is both (`/plugins/pages`
 * before `/plugins/:name`).
 */
export function commandRoutes(app: WebApp): { fixed: Router; withParams: Router } {
  const fixed = new Router({ prefix: '/api' })
  const withParams = new Router({ prefix: '/api' })
  for (const entry of httpCommands(app.bus.catalogue))
    commandRoute(entry.http.path.includes(':') ? withParams : fixed, app, entry)
  return { fixed, withParams }
}

function commandRoute(router: Router, app: WebApp, { command, spec, http }: HttpCommand): void {
  const pathNames = pathParamNames(http.path).map(({ name }) => name)
  const fieldOf = (param: string) => http.params?.[param] ?? param
  const input =
    http.input ??
    payloadBeyond(spec.payload, [
      ...pathNames.map(fieldOf),
      ...Object.keys(http.fixed ?? {}),
      ...(http.upload ? [http.upload.to] : []),
      ...(http.caller ? [http.caller] : []),
    ])
  const inBody = hasBody(http.method)
  if (http.upload && !inBody)
    throw new Error(
      `${command}'s ${http.method.toUpperCase()} door takes an upload: only a POST, PUT or PATCH has a body`,
    )
  defineRoute(
    router,
    {
      method: http.method,
      path: http.path,
      name: http.name,
      summary: http.summary,
      tags: http.tags,
      access: http.access,
      right: http.right,
      session: http.session,
      // Work begun as a task is answered 202 (Accepted), whatever else the door says.
      status: http.task ? 202 : http.status,
      errors: http.errors,
      paramMax: http.paramMax,
      ...(http.upload ? { uploads: { [http.upload.field]: http.upload.description } } : {}),
      ...(input ? (inBody ? { body: input } : { query: input }) : {}),
      response: successBody(spec.reply, http),
    },
    async (ctx, request) => {
      const sent = ((inBody ? request.body : request.query) ?? {}) as Record<string, unknown>
      const payload = renamed(sent, http.rename)
      for (const param of pathNames) payload[fieldOf(param)] = request.params?.[param]
      Object.assign(payload, http.fixed)
      if (http.caller) payload[http.caller] = currentUser(ctx).username
      if (http.upload) payload[http.upload.to] = uploadUnderItsName(ctx, http.upload.field)
      // The payload as its command's schema reads it (the route's own input schema answered 422 for
      // what it saw; a field it did not, a path parameter, is SM_ERR_BUS_BAD_PAYLOAD, 400).
      const checked = app.bus.catalogue.checkCommand(command, payload) as CommandPayload<CommandName>
      checkRequest(command, checked as Record<string, unknown>, ctx.state.user)
      const reply = narrowReply(
        command,
        checked as Record<string, unknown>,
        await app.bus.request(command as CommandName, checked),
        ctx.state.user,
      )
      const answer = http.withoutServerSecrets ? withoutServerSecrets(reply) : reply
      const message = http.message === undefined ? {} : { message: doorMessage(http.message, checked) }
      if (http.task && typeof reply === 'object' && reply !== null && 'taskId' in reply)
        return { status: 'accepted', ...message, task_id: reply.taskId }
      return http.key === undefined
        ? { status: 'success', ...message, ...renamed(answer as Record<string, unknown>, http.replyNames) }
        : { status: 'success', ...message, [http.key]: answer }
    },
  )
}

/** `fields` with those `names` names under their new names (the door's `rename` and `replyNames`). */
function renamed<T>(fields: Readonly<Record<string, T>>, names?: Readonly<Record<string, string>>): Record<string, T> {
  return Object.fromEntries(Object.entries(fields).map(([field, value]) => [names?.[field] ?? field, value]))
}

/** The payload's fields but those the path and the door give: what a client sends in the query or body. */
function payloadBeyond(payload: z.ZodType, fromPath: readonly string[]): z.ZodObject | undefined {
  if (!(payload instanceof z.ZodObject)) return undefined
  const rest = Object.entries(payload.shape).filter(([field]) => !fromPath.includes(field))
  return rest.length > 0 ? z.object(Object.fromEntries(rest)) : undefined
}

/**
 * `{ status: 'success', ...reply }` or `{ status: 'success', [key]: reply }`, named in the
 * document's components. Open to more fields, as the hand-written bodies are: a field added to a
 * reply later does not break a client that checks against the document.
 */
function successBody(reply: z.ZodType, http: HttpDoor): z.ZodType {
  if (http.task) return Accepted
  const inner = reply instanceof z.ZodReadonly ? reply.unwrap() : reply
  const fields =
    http.key !== undefined
      ? { [http.key]: reply }
      : inner instanceof z.ZodObject
        ? renamed(inner.shape, http.replyNames)
        : undefined
  const message = http.message === undefined ? {} : { message: z.string() }
  const body = z.looseObject({ ...message, ...fields, status: z.literal('success') })
  // A reply that is not an object (none declares one yet) is documented beside the status.
  return (fields ? body : body.and(reply)).meta({ id: http.response })
}
