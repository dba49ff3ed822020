import { resolve } from 'node:path'
import { declaredService, isSmError, reasonOf, type Service, SmError, toSmError } from '../../kernel'
import { closest } from '../../lib/closest'
import { HOSTS } from '../bridge/contract'
import { PROJECTIONS } from '../events/contract'
import { TASKS } from '../tasks/contract'
import { AccessLists } from './access-lists'
import { Backups } from './backups/backups'
import type { ServerRecord, ServerStatus } from './contract'
import { ServerControl } from './control'
import { serversDeclaration } from './declarations'
import { playerHistoryProjection, readPlayerHistory } from './player-history'
import { askPlayers } from './player-list'
import { PlayerTracker } from './player-tracker'
import { gameProfile } from './profiles'
import { readServers, serversProjection } from './registry-projection'
import { readSchedules, Scheduler, schedulesProjection } from './schedules'
import { ServerList } from './server-list'
import { readStatuses, statusProjection } from './status-projection'
import { agentVerbs } from './verbs/agent'
import { backupVerbs } from './verbs/backups'
import { consoleVerbs } from './verbs/console'
import { registerVerbs, type ServersContext } from './verbs/context'
import { installVerbs } from './verbs/install'
import { longWorkVerbs } from './verbs/long-work'
import { playerVerbs } from './verbs/players'
import { powerVerbs } from './verbs/power'
import { registryVerbs } from './verbs/registry'
import { scheduleVerbs } from './verbs/schedules'
import { settingVerbs } from './verbs/settings'

export type * from './contract'

/** Every `servers:*` command, by area (services/servers/verbs/). */
const VERBS = [
  registryVerbs,
  installVerbs,
  powerVerbs,
  longWorkVerbs,
  consoleVerbs,
  backupVerbs,
  settingVerbs,
  playerVerbs,
  scheduleVerbs,
  agentVerbs,
]

/**
 * The game servers: a registry of named server directories (a projection of their facts), their
 * supervised processes, consoles, backups, players and schedules. This file is the wiring: it
 * builds the context the verbs work with, registers every table of verbs, and starts and stops
 * what runs in the manager (the live follow, the player tracker, the schedules).
 */
/**
 * `autostart`: this process starts the servers whose `autostart` setting is true once it
 * manages them: a host agent, which loads no plugins (in the manager, the autostart plugin does).
 */
export function serversService(options: { autostart?: boolean } = {}): Service {
  let ctx: ServersContext | undefined
  return {
    ...declaredService(serversDeclaration),
    async start({ bus, config, logger, registry }) {
      const projections = registry.resolve(PROJECTIONS)
      for (const projection of [serversProjection, statusProjection, schedulesProjection, playerHistoryProjection])
        await projections.register(projection)
      await bus.request('events:declare_facts', {
        types: [
          'servers:added',
          'servers:removed',
          'servers:setting_changed',
          'servers:edited',
          'servers:backup_deleted',
          'servers:eula_accepted',
          'servers:schedule_added',
          'servers:schedule_changed',
          'servers:schedule_removed',
          'servers:schedule_ran',
        ],
      })
      const tasks = registry.resolve(TASKS)
      const setting = async (key: string) => (await bus.request('settings:get', { key })).value
      const all = () => projections.view(serversProjection.name, readServers)
      const find = async (name: string): Promise<ServerRecord> => {
        const servers = await all()
        const server = servers.find((s) => s.name === name)
        if (server) return server
        const nearest =
          typeof name === 'string'
            ? closest(
                name,
                servers.map((s) => s.name),
              )
            : undefined
        throw new SmError('SM_ERR_SERVER_NOT_FOUND', {
          server: String(name),
          hint: nearest ? ` Did you mean '${nearest}'?` : '',
        })
      }
      const history = (name: string) =>
        projections.read(playerHistoryProjection.name, (sql) => readPlayerHistory(sql, name))
      const players = new PlayerTracker(bus, logger, {
        find,
        history,
        files: (name) => control.files(name),
      })
      const control = new ServerControl(bus, projections, config.dataDir, setting, logger, {
        sample: (name, sample) => {
          players.sampled(name)
          const now = players.now(name)
          void bus.emit('servers:sampled', {
            serverName: name,
            sample,
            ...(now ? { players: { online: now.online, max: now.max } } : {}),
          })
        },
        // Who left meanwhile is known once the game says who is online.
        resumed: (server) => void seedPlayers(context, server),
      })
      const backups = new Backups(
        bus,
        control,
        setting,
        (percent, message) => tasks.progress(percent, message),
        () => tasks.signal(),
      )
      const context: ServersContext = {
        bus,
        dataDir: config.dataDir,
        logger,
        control,
        backups,
        access: new AccessLists(bus, control, history),
        players,
        serverList: new ServerList(),
        scheduler: new Scheduler(bus, logger, async (schedule) => {
          const server = await find(schedule.server)
          return context.task(
            `schedule ${schedule.action} ${schedule.server}`,
            schedule.server,
            async (): Promise<unknown> => {
              if (schedule.action === 'backup') return backups.backup(server, 'world')
              if (schedule.action === 'restart') return control.restart(server, 'schedule')
              return control.send(server, schedule.command ?? '')
            },
          )
        }),
        setting,
        all,
        find,
        places: async () => ({
          dataDir: config.dataDir,
          serversFolder: resolve(config.dataDir, String(await setting('paths.servers'))),
        }),
        task: (name, server, work) => tasks.run(name, work, { server }).done,
        begin: (name, server, work) => {
          const { id, done } = tasks.run(name, work, { server })
          done.catch(() => {}) // recorded as tasks:finished, read with tasks:get
          return { taskId: id }
        },
        history,
        schedules: () => projections.read(schedulesProjection.name, readSchedules),
        listPlayers: (server) => askPlayers(server, (command) => control.ask(server, command, 'tell who is online')),
        online: (name, status) => (tracked(status) ? players.now(name) : undefined),
        onlineCount: (name, status) => (tracked(status) ? players.count(name) : undefined),
        hosts: () => (registry.has(HOSTS) ? registry.resolve(HOSTS) : undefined),
        statuses: () => projections.view(statusProjection.name, readStatuses),
      }
      ctx = context
      for (const table of VERBS) registerVerbs(bus, context, table)

      // The manager's player tracker reads every followed console, and hears when a game ends.
      bus.on('servers:console', ({ serverName, line }) => players.line(serverName, line))
      bus.on('after_server_status_change', (change) => {
        control.moves.moved(change.serverName)
        return players.statusChanged(change)
      })
      bus.on('servers:added', ({ server }) => players.forget(server.name))
      bus.on('servers:removed', ({ name }) => {
        players.forget(name)
        control.moves.forget(name)
      })

      // A read of the log shows what supervisors saw while nobody recorded it (events, the API, --follow).
      bus.on('events:reading', async () => control.recordPending(await here(all)))

      // The manager follows its servers live, adopts what outlived a supervisor and runs the
      // schedules; a one-shot CLI does none of that.
      bus.on('manager:started', () => manage(context, options.autostart === true), { timeoutMs: 0 })
      bus.on('kernel:stopping', () => release(context))
    },
    async stop() {
      if (!ctx) return
      release(ctx)
      await ctx.control.close()
    },
  }
}

/** Whether the player tracker counts who is online on a server in this status: its game runs. */
function tracked(status: ServerStatus): boolean {
  return status === 'running' || status === 'stopping'
}

/** In the manager: runs the schedules, follows every server, and cleans up after interrupted work. */
async function manage(ctx: ServersContext, autostart: boolean): Promise<void> {
  ctx.scheduler.start(await ctx.schedules())
  const registered = await here(ctx.all)
  ctx.players.start()
  // Each running game it follows is asked who is online (`resumed`).
  await ctx.control.reconcile(registered)
  for (const server of registered) {
    const removed = await ctx.backups.recover(server).catch((error) => {
      ctx.logger.warn(`The backups of '${server.name}' could not be checked: ${reasonOf(error)}`)
      return []
    })
    if (removed.length)
      ctx.logger.info(`Cleaned up after interrupted backups or restores of '${server.name}': ${removed.join(', ')}.`)
  }
  if (autostart) void startAutostarts(ctx, registered)
}

/**
 * A host agent's autostart (the manager's is its autostart plugin): each server set to autostart
 * that is not under way is started, one after another, as the plugin does it (its hooks asked of
 * the manager's plugins); each failure is said with its code, and does not keep the others back.
 */
async function startAutostarts(ctx: ServersContext, servers: readonly ServerRecord[]): Promise<void> {
  for (const server of servers) {
    if (server.settings?.autostart !== true) continue
    try {
      const { status } = await ctx.control.status(server)
      if (status !== 'stopped' && status !== 'crashed') continue
      await ctx.bus.request('servers:start', { name: server.name })
      ctx.logger.info(`Started '${server.name}' (autostart).`)
    } catch (error) {
      const coded = toSmError(error)
      ctx.logger.warn(`Autostart of '${server.name}' did not happen: [${coded.code}] ${coded.message}`)
    }
  }
}

/** The servers of this machine (the others are their host agents' to follow and supervise). */
async function here(all: () => Promise<readonly ServerRecord[]>): Promise<ServerRecord[]> {
  return (await all()).filter((server) => server.host === undefined)
}

/** Stops what `manage` started; the servers and their supervisors run on. */
function release(ctx: ServersContext): void {
  ctx.scheduler.stop()
  ctx.control.stopFollowing()
  ctx.players.close()
}

/**
 * Who is online on a game the manager follows again (found running at its start, or its
 * supervisor replaced): its list command, whose reply the tracker reads on the console like any
 * other (players who joined meanwhile get no fact; those who left get an `unseen` leave).
 */
async function seedPlayers(ctx: ServersContext, server: ServerRecord): Promise<void> {
  if (!gameProfile(server).players) return
  ctx.players.forget(server.name)
  await ctx.listPlayers(server).catch((error: unknown) => {
    if (isSmError(error) && error.code === 'SM_ERR_SERVER_NOT_RUNNING') return
    ctx.logger.warn(`Who is online on '${server.name}' is not known until it is listed: ${reasonOf(error)}`)
  })
}
