import { mkdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { declaredService, reasonOf, type Service, type ServiceContext, SmError, toSmError } from '../../kernel'
import { withoutSecrets } from '../../lib/secrets'
import { PROJECTIONS } from './contract'
import { SqliteDatabase } from './database'
import { eventsDeclaration } from './declarations'
import { EventStore } from './event-store'
import { Follower } from './follower'
import { applyRetention, type RetentionOptions, scheduleRetention } from './retention'

export type * from './contract'

/** The database file inside a data directory. */
export function databasePath(dataDir: string): string {
  return join(dataDir, 'server-manager.db')
}

/**
 * The event log service: owns `<data dir>/server-manager.db`, records every fact emitted on the
 * bus (every `after_*` event and declared fact types) before listeners run, keeps projections
 * in the same transaction, and answers the `events:*` commands.
 */
export function eventsService(options: { retention?: RetentionOptions } = {}): Service {
  let store: EventStore | undefined
  let follower: Follower | undefined
  let stopRetention: (() => void) | undefined
  let stopWatch: (() => void) | undefined

  return {
    ...declaredService(eventsDeclaration),
    async start({ bus, config, logger, registry }: ServiceContext) {
      const path = databasePath(config.dataDir)
      ensureDirectory(config.dataDir)
      const opened = await EventStore.create(await SqliteDatabase.open({ path }), bus.catalogue.renamedEvents())
      store = opened
      const facts = new Set<string>()
      const follow = new Follower(opened, bus, logger)
      follower = follow
      opened.onCommitted((events) => follow.appended(events))
      registry.provide(PROJECTIONS, {
        register: async (projection) => ({ rebuilt: await opened.register(projection) }),
        read: async (projection, read) => opened.readProjection(projection, read),
        view: async (projection, read) => opened.viewProjection(projection, read),
      })

      bus.handle('events:append', ({ events }) => opened.append(events))
      // What leaves the log for people and clients has secret values redacted, like logs and hooks.
      // Facts held elsewhere and not yet recorded are recorded first (events:reading).
      bus.handle('events:read', async (query) => {
        await bus.emit('events:reading', {})
        return (await opened.read(query)).map((event) => ({ ...event, payload: withoutSecrets(event.payload) }))
      })
      let relayed = Promise.resolve()
      bus.handle('events:head', async () => ({ seq: await opened.head(), log: opened.logId }))
      bus.handle('events:ingest', async ({ origin, events, through, log }) => {
        const { stored, cursor } = await opened.ingest(origin, events, through, log)
        // Recorded here: the listeners of this process hear them as they hear its own facts, in
        // order, but after the answer: a listener may itself ask that host something, which takes
        // in its facts again, and must not wait on the very ingest that called it.
        relayed = relayed.then(async () => {
          for (const event of stored)
            await bus.relay(event.type, event.payload, event.actor, event.seq).catch((error: unknown) => {
              const coded = toSmError(error)
              logger.warn(
                `the fact ${event.type} (seq ${event.seq}) taken in from '${origin}' did not reach every listener: [${coded.code}] ${coded.message}`,
              )
            })
        })
        return { appended: stored.length, cursor }
      })
      bus.handle('events:origin', ({ origin }) => opened.origin(origin))
      bus.handle('events:declare_facts', ({ types }) => {
        for (const type of types) facts.add(type)
        return undefined
      })
      bus.handle('events:rebuild', () => opened.rebuild())
      bus.handle('events:check', () => opened.check())
      bus.handle('events:prune', (limits) => opened.prune(limits))
      bus.handle('events:apply_retention', () => applyRetention(opened, bus))
      bus.handle('events:watch', ({ afterSeq }) => {
        follow.watch(afterSeq)
        return undefined
      })

      bus.handle('events:vault_get', ({ name }) => opened.vaultGet(name))
      bus.handle('events:vault_set', ({ name, value }) => opened.vaultSet(name, value))
      bus.handle('events:vault_init', ({ name, value }) => opened.vaultInit(name, value))

      bus.setRecorder({
        accepts: (type) => type.startsWith('after_') || facts.has(type),
        record: async (type, payload, actor) => {
          const stored = await opened.append([{ type, actor, payload }])
          return stored[0]?.seq ?? 0
        },
      })
      stopRetention = scheduleRetention(opened, bus, logger, options.retention)
      stopWatch = watchFile(path, (reason) => {
        logger.error(`the database ${reason}`, { code: 'SM_ERR_DB_REPLACED', path })
        void bus.emit('events:database_lost', { path, reason })
      })
      logger.debug('event log open', { path })
    },
    async stop() {
      stopWatch?.()
      stopRetention?.()
      follower?.stop()
      await store?.close()
      store = undefined
    },
  }
}

function ensureDirectory(path: string): void {
  try {
    mkdirSync(path, { recursive: true })
  } catch (error) {
    throw new SmError('SM_ERR_DATA_DIR_UNUSABLE', { path, reason: reasonOf(error) }, { cause: error })
  }
}

const WATCH_INTERVAL_MS = 1_000

/**
 * Calls `lost` once if the file at `path` is deleted or replaced (another inode): SQLite keeps
 * writing to the open file, which nobody would ever read again. One stat a second, unref'd.
 */
function watchFile(path: string, lost: (reason: string) => void): () => void {
  const identity = (): string => {
    try {
      const stat = statSync(path)
      return `${stat.dev}:${stat.ino}`
    } catch {
      return 'deleted'
    }
  }
  const original = identity()
  const timer = setInterval(() => {
    const now = identity()
    if (now === original) return
    clearInterval(timer)
    lost(now === 'deleted' ? 'was deleted' : 'was replaced by another file')
  }, WATCH_INTERVAL_MS)
  timer.unref()
  return () => clearInterval(timer)
}
