import { type CommandPayload, type CommandReply, SmError } from '../../../kernel'
import type { ServerRecord } from '../contract'
import type { ServersContext, Verb } from './context'

/** The verbs whose work is long: each runs as a task named `<verb> <server>`. */
type LongVerb = 'start' | 'stop' | 'restart' | 'backup' | 'restore' | 'export' | 'import'

/** A verb's long work, on the server its payload names (found before the task begins). */
type Work<P, R = unknown> = (ctx: ServersContext, server: ServerRecord, payload: P) => Promise<R>

/** The long work of `servers:<V>`: its payload in, its reply out. */
type VerbWork<V extends LongVerb> = Work<CommandPayload<`servers:${V}`>, CommandReply<`servers:${V}`>>

/** The long work of each verb that has some: what `servers:<verb>` awaits and `servers:begin` starts. */
const LONG_WORK: { readonly [V in LongVerb]: VerbWork<V> } = {
  start: (ctx, server, { mode }) => ctx.control.start(server, mode ?? 'detached'),
  stop: (ctx, server) => ctx.control.stop(server),
  restart: (ctx, server) => ctx.control.restart(server),
  backup: (ctx, server, { type, stopStart }) => ctx.backups.backup(server, type ?? 'world', { stopStart }),
  restore: (ctx, server, { file, stopStart }) => ctx.backups.restore(server, file, { stopStart }),
  export: (ctx, server, { file, stopStart }) => ctx.backups.export(server, file, { stopStart }),
  import: (ctx, server, { file, stopStart }) => ctx.backups.import(server, file, { stopStart }),
}

type Begun = CommandPayload<'servers:begin'>

/** What `servers:begin` may start (the actions its payload declares), each its verb's own work. */
const BEGINNABLE: { readonly [A in Begun['action']]: Work<Begun & { action: A }> } = {
  start: LONG_WORK.start,
  stop: LONG_WORK.stop,
  restart: LONG_WORK.restart,
  backup: LONG_WORK.backup,
  restore: LONG_WORK.restore,
}

/** The handler of `servers:<verb>`: its work, awaited as a task. */
export function asTask<V extends LongVerb>(verb: V): Verb<`servers:${V}`> {
  const work: VerbWork<V> = LONG_WORK[verb]
  return async (ctx, payload) => {
    const server = await ctx.find(payload.name)
    return ctx.task(`${verb} ${payload.name}`, server.name, () => work(ctx, server, payload))
  }
}

/** `servers:begin`: the work of a verb, answered at once with its task's id (the web API's 202). */
export const longWorkVerbs = {
  'servers:begin': async (ctx, request) => {
    const action = String(request.action)
    if (!Object.hasOwn(BEGINNABLE, action))
      throw new SmError('SM_ERR_SERVER_ACTION_UNKNOWN', { action, known: Object.keys(BEGINNABLE).join(', ') })
    const work = BEGINNABLE[request.action] as Work<Begun>
    const server = await ctx.find(request.name)
    // A start of what runs, or a stop of what does not, is refused now (409), not as a failed
    // task after a 202; the task checks again under the power lock, as every start and stop does.
    if (request.action === 'start' || request.action === 'stop') {
      const refused = await ctx.control.refusal(server, request.action)
      if (refused) throw refused
    }
    // So is a restore of a backup the server does not have (404).
    if (request.action === 'restore' && !(await ctx.backups.list(server)).some((b) => b.file === request.file))
      throw new SmError('SM_ERR_BACKUP_NOT_FOUND', { server: request.name, file: request.file })
    return ctx.begin(`${request.action} ${request.name}`, server.name, () => work(ctx, server, request))
  },
} satisfies { 'servers:begin': Verb<'servers:begin'> }
