import './contract'
import { writeFileWhole } from '../../lib/whole-file'
import './actions'
import './errors'
import './settings'
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs'
import { homedir } from 'node:os'
import { join, resolve, sep } from 'node:path'
import { type BusScope, closest, isSmError, performAction, reasonOf, type Service, SmError } from '../../kernel'
import { querySeries } from '../../lib/series-query'
import { PROJECTIONS } from '../events/contract'
import { TASKS } from '../tasks/contract'
import { AccessLists } from './access-lists'
import { Backups } from './backups/backups'
import type { AddServer, ServerInfo, ServerRecord } from './contract'
import { ServerControl, settled } from './control'
import { detectProfile, javaLaunch } from './detect'
import { acceptEula, EULA_URL, eulaState } from './eula'
import { applyUpdate, installSource, keptOnUpdate, renameJarForUpdate, stageRelease } from './install'
import { playerHistoryProjection, readPlayerHistory } from './player-history'
import { askPlayers } from './player-list'
import { PlayerTracker } from './player-tracker'
import {
  BUILT_IN_PROFILES,
  gameProfile,
  PROFILE_NAMES,
  type ProfileName,
  parseHotBackup,
  patternProblem,
} from './profiles'
import { readServers, serversProjection } from './registry-projection'
import { describeSchedule, listed, readSchedules, Scheduler, schedulesProjection } from './schedules'
import { dirConflict, isInside } from './server-dir'
import { propertyProblem, ServerProperties } from './server-properties'
import { allServerSettings, checkServerSetting, serverSetting, serverSettingViews } from './server-settings'
import { statusProjection } from './status-projection'
import { ACTIVE, type ServerStatus } from './supervisor/run-files'
import { SERVER_FIELDS, SERVER_PEAKS } from './supervisor/sampler'
import { worldOf } from './world'

export type * from './contract'

const NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/
const PROPERTIES = 'server.properties'

/**
 * The game servers: a registry of named server directories (a projection of their facts), their
 * profile (bedrock or generic), and their server.properties. Starting, stopping and supervising
 * them arrive in this service next.
 */
export function serversService(): Service {
  let control: ServerControl | undefined
  let tracker: PlayerTracker | undefined
  let stopScheduler: (() => void) | undefined
  return {
    name: 'servers',
    dependsOn: ['events', 'settings', 'tasks', 'metrics'],
    async start({ bus, config, logger, registry }) {
      const tasks = registry.resolve(TASKS)
      /** Long work runs as a task (listed by `tasks`, recorded as facts); the caller still gets its result. */
      const task = <T>(name: string, fn: () => Promise<T>) => tasks.run(name, fn).done
      const projections = registry.resolve(PROJECTIONS)
      for (const projection of [serversProjection, statusProjection, schedulesProjection, playerHistoryProjection])
        await projections.register(projection)
      await bus.request('events:declare_facts', {
        types: [
          'server_added',
          'server_removed',
          'server_setting_changed',
          'server_eula_accepted',
          'schedule_added',
          'schedule_removed',
          'schedule_ran',
        ],
      })
      const all = () => projections.read(serversProjection.name, readServers)
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

      /** The work of each tracked handler, by verb: `servers:begin` runs it in the background. */
      const trackedWork = new Map<string, (server: ServerRecord, payload: never) => Promise<unknown>>()
      /** A handler whose work runs as a task named `<verb> <server>`, on the server the payload names. */
      const tracked = <P extends { name: string }, T>(
        verb: string,
        work: (server: ServerRecord, payload: P) => Promise<T>,
      ) => {
        trackedWork.set(verb, work as (server: ServerRecord, payload: never) => Promise<unknown>)
        return async (payload: P): Promise<T> => {
          const server = await find(payload.name)
          return task(`${verb} ${payload.name}`, () => work(server, payload))
        }
      }
      const setting = async (key: string) => (await bus.request('settings:get', { key })).value
      const players = new PlayerTracker(bus, logger, find)
      tracker = players
      const servers = new ServerControl(bus, projections, config.dataDir, setting, logger, (name, sample) => {
        const now = players.now(name)
        void bus.emit('server_metrics', {
          serverName: name,
          sample,
          ...(now ? { players: { online: now.online, max: now.max } } : {}),
        })
      })
      control = servers
      /** Who is online, while the manager follows the server running and knows. */
      const online = (name: string, status: ServerStatus) =>
        status === 'running' || status === 'stopping' ? players.now(name) : undefined

      /** Where servers may not be (server-dir.ts): the data directory, but for the folder install uses. */
      const places = async () => ({
        dataDir: config.dataDir,
        serversFolder: resolve(config.dataDir, String(await setting('paths.servers'))),
      })
      bus.handle('servers:add', async (request) => {
        const server = await describe(request, await all(), await places())
        await bus.emit('server_added', { server })
        return server
      })
      bus.handle('servers:list', async () =>
        Promise.all(
          (await all()).map(async (server) => {
            const run = await servers.status(server)
            const count = online(server.name, run.status)?.online
            return {
              ...server,
              status: run.status,
              pid: run.pid,
              ...(count === undefined ? {} : { players: count }),
              ...(run.metrics ? { metrics: run.metrics } : {}),
            }
          }),
        ),
      )
      bus.handle('servers:info', async ({ name }) => info(await find(name)))
      // A copy: the built-in profiles' nested fields are shared, and a plugin holds what it gets.
      bus.handle('servers:profile', async ({ name }) => structuredClone(gameProfile(await find(name))))
      bus.handle('servers:remove', async ({ name, deleteFiles }) => {
        const server = await find(name)
        // A server whose run is under way is not removed: the same answer a start of it gets.
        const running = await servers.refusal(server, 'start')
        if (running) throw running
        if (deleteFiles) await deleteData(bus, server, config.dataDir)
        rmSync(servers.files(name).dir, { recursive: true, force: true })
        await bus.emit('server_removed', { name, filesDeleted: deleteFiles === true })
        return {
          status: 'success' as const,
          message: `Server '${name}' removed${deleteFiles ? `, and ${server.dir} deleted` : `; its files stay in ${server.dir}`}.`,
        }
      })
      bus.handle('servers:properties', async ({ name }) => readProperties(await find(name)).entries())
      bus.handle('servers:set_properties', async ({ name, properties }) =>
        setProperties(bus, await find(name), properties),
      )
      bus.handle('servers:status', async ({ name }) => {
        const run = await servers.status(await find(name))
        const now = online(name, run.status)
        return now ? { ...run, players: now } : run
      })
      /** Who is online, asked of the game now (a read: not a command_send action). */
      const listPlayers = (server: ServerRecord) =>
        askPlayers(server, (command) => servers.ask(server, command, 'tell who is online'))
      bus.handle('servers:players', async ({ name }) => listPlayers(await find(name)))
      const history = (name: string) =>
        projections.read(playerHistoryProjection.name, (sql) => readPlayerHistory(sql, name))
      bus.handle('servers:player_history', async ({ name }) => {
        const server = await find(name)
        await servers.status(server) // a look records a game's end nobody saw, which ends its sessions
        return history(server.name)
      })
      const access = new AccessLists(bus, servers, history)
      bus.handle('servers:access_list', async ({ name, list }) => access.list(await find(name), list))
      bus.handle('servers:access_change', async ({ name, list, change, player }) =>
        access.change(await find(name), list, change, player),
      )
      bus.handle(
        'servers:start',
        tracked('start', (server, { mode }) => servers.start(server, mode ?? 'detached')),
      )
      bus.handle(
        'servers:stop',
        tracked('stop', (server) => servers.stop(server)),
      )
      bus.handle(
        'servers:restart',
        tracked('restart', (server) => servers.restart(server)),
      )
      bus.handle('servers:kill', async ({ name }) => servers.kill(await find(name)))
      bus.handle('servers:send', async ({ name, command }) => servers.send(await find(name), command))
      const backups = new Backups(
        bus,
        servers,
        setting,
        (percent, message) => tasks.progress(percent, message),
        () => tasks.signal(),
      )
      bus.handle(
        'servers:backup',
        tracked('backup', (server, { type, stopStart }) => backups.backup(server, type ?? 'world', { stopStart })),
      )
      bus.handle('servers:backups', async ({ name }) => backups.list(await find(name)))
      bus.handle('servers:backup_file', async ({ name, file }) => {
        const server = await find(name)
        const found = (await backups.list(server)).find((b) => b.file === file)
        if (!found) throw new SmError('SM_ERR_BACKUP_NOT_FOUND', { server: name, file: String(file) })
        return { ...found, path: join(await backups.folder(server), found.file) }
      })
      bus.handle(
        'servers:restore',
        tracked('restore', (server, { file, stopStart }) => backups.restore(server, file, { stopStart })),
      )
      // The same work as servers:<action>, answered at once with the task's id (the web API's 202).
      bus.handle('servers:begin', async (request) => {
        const server = await find(request.name)
        // A start of what runs, or a stop of what does not, is refused now (409), not as a failed
        // task after a 202; the task checks again under the power lock, as every start and stop does.
        if (request.action === 'start' || request.action === 'stop') {
          const refused = await servers.refusal(server, request.action)
          if (refused) throw refused
        }
        const work = trackedWork.get(request.action) as (
          server: ServerRecord,
          payload: typeof request,
        ) => Promise<unknown>
        const { id, done } = tasks.run(`${request.action} ${request.name}`, () => work(server, request))
        done.catch(() => {}) // recorded as task_finished, read with tasks:get
        return { taskId: id }
      })
      bus.handle('servers:prune', async ({ name, keep }) => backups.prune(await find(name), keep))
      bus.handle(
        'servers:export',
        tracked('export', (server, { file, stopStart }) => backups.export(server, file, { stopStart })),
      )
      bus.handle(
        'servers:import',
        tracked('import', (server, { file, stopStart }) => backups.import(server, file, { stopStart })),
      )
      bus.handle('servers:install', async ({ name, from, dir }) => {
        checkNewName(name, await all())
        const target = resolve(dir ?? join(String(await setting('paths.servers')), name))
        if (existsSync(target) && readdirSync(target).length > 0)
          throw new SmError('SM_ERR_SERVER_DIR_UNUSABLE', { dir: target, reason: 'it exists and is not empty' })
        // Before anything is unpacked there: the same place checks as an add.
        const conflict = dirConflict(target, await all(), await places())
        if (conflict) throw new SmError('SM_ERR_SERVER_DIR_UNUSABLE', { dir: target, reason: conflict })
        const source = await installSource(from)
        const outcome = await performAction(bus, {
          before: 'before_server_install',
          after: 'after_server_install',
          payload: { serverName: name, source: source.description, mode: 'install' },
          perform: () =>
            task(`install ${name}`, async () => {
              const staging = await stageRelease(source, target)
              rmSync(target, { recursive: true, force: true })
              renameSync(staging, target)
              const server = await describe({ name, dir: target }, await all(), await places())
              await bus.emit('server_added', { server })
              return server
            }),
          message: (server) => `Installed '${name}' in ${server.dir}.`,
        })
        return settled(outcome, name, 'The install of')
      })
      bus.handle('servers:update', async ({ name, from, stopStart }) => {
        const server = await find(name)
        if (server.profile === 'generic')
          throw new SmError('SM_ERR_INSTALL_INVALID', {
            source: String(from),
            reason: `'${name}' is a generic server, whose program and data are not told apart: replace its files in its directory (the web file manager, or by hand) while it is stopped`,
          })
        const source = await installSource(from)
        const running = ACTIVE.includes((await servers.status(server)).status)
        if (running && !stopStart)
          throw new SmError('SM_ERR_BACKUP_SERVER_RUNNING', { server: name, action: 'an update' })
        const outcome = await performAction(bus, {
          before: 'before_server_install',
          after: 'after_server_install',
          payload: { serverName: name, source: source.description, mode: 'update' },
          perform: () =>
            task(`update ${name}`, () => {
              const update = async () => {
                // Unpacked and checked first: a release of another game changes nothing.
                const staging = await stageRelease(source, server.dir)
                try {
                  const game = detectProfile(staging)
                  if (game !== server.profile)
                    throw new SmError('SM_ERR_INSTALL_INVALID', {
                      source: source.description,
                      reason: `it holds a ${game} server, and '${name}' is a ${server.profile} one`,
                    })
                  if (server.profile === 'java') renameJarForUpdate(staging, server)
                  // Everything the server has (a part it lacks is skipped): the state to go back to.
                  const backup = (await backups.backup(server, 'all')).files
                  return { replaced: applyUpdate(staging, server.dir, keptOnUpdate(server)), backup }
                } finally {
                  rmSync(staging, { recursive: true, force: true })
                }
              }
              return running ? servers.stopped(server, 'an update', update) : update()
            }),
          message: (r) => `Updated '${name}': replaced ${r.replaced.length} files and folders; config and worlds kept.`,
        })
        return settled(outcome, server.name, 'The update of')
      })
      bus.handle('servers:eula', async ({ name, accept }) => {
        const server = await find(name)
        const needed = gameProfile(server).eula
        if (accept === true) {
          if (!needed)
            throw new SmError('SM_ERR_SERVER_PROFILE_INVALID', {
              server: name,
              field: 'EULA',
              reason: `its profile (${server.profile}) has no EULA to accept`,
            })
          acceptEula(server)
          await bus.emit('server_eula_accepted', { serverName: name })
        }
        return { needed, ...eulaState(server), url: EULA_URL }
      })
      bus.handle('servers:get_setting', async ({ name, key }) => {
        const server = await find(name)
        if (key === undefined) return { value: await allServerSettings(server, setting) }
        checkServerSetting(name, key, undefined)
        return { value: await serverSetting(server, key, setting) }
      })
      bus.handle('servers:set_setting', async ({ name, key, value }) => {
        const server = await find(name)
        checkServerSetting(name, key, value)
        const previous = await serverSetting(server, key, setting)
        await bus.emit('server_setting_changed', { name, key, value })
        return {
          key,
          value: value === undefined ? await serverSetting(await find(name), key, setting) : value,
          previous,
        }
      })
      bus.handle('servers:settings', async ({ name }) => serverSettingViews(await find(name), setting))
      // A form's changes: every one checked before any is made, so a bad one changes nothing.
      bus.handle('servers:set_settings', async ({ name, settings }) => {
        await find(name)
        const changes = Object.entries(settings ?? {}).map(([key, value]) => [key, value ?? undefined] as const)
        for (const [key, value] of changes) checkServerSetting(name, key, value)
        for (const [key, value] of changes) await bus.emit('server_setting_changed', { name, key, value })
        return serverSettingViews(await find(name), setting)
      })
      bus.handle('servers:logs', async ({ name, lines }) => servers.logs(await find(name), lines ?? 50))
      bus.handle('servers:metrics', async ({ name, ...range }) =>
        querySeries(servers.files((await find(name)).name).metrics, SERVER_FIELDS, SERVER_PEAKS, range),
      )
      const schedules = () => projections.read(schedulesProjection.name, readSchedules)
      const scheduler = new Scheduler(bus, logger, async (schedule) => {
        const server = await find(schedule.server)
        return task(`schedule ${schedule.action} ${schedule.server}`, async (): Promise<unknown> => {
          if (schedule.action === 'backup') return backups.backup(server, 'world')
          if (schedule.action === 'restart') return servers.restart(server, 'schedule')
          return servers.send(server, schedule.command ?? '')
        })
      })
      stopScheduler = () => scheduler.stop()
      let managing = false
      bus.handle('servers:schedule_add', async ({ name, cron, action, command, timezone }) => {
        const server = await find(name)
        const schedule = describeSchedule({ server: server.name, cron, action, command, timezone })
        await bus.emit('schedule_added', { schedule })
        if (managing) scheduler.sync(await schedules())
        return listed(schedule)
      })
      bus.handle('servers:schedule_list', async ({ name }) => {
        if (name !== undefined) await find(name)
        return (await schedules()).filter((s) => name === undefined || s.server === name).map(listed)
      })
      bus.handle('servers:schedule_remove', async ({ id }) => {
        const schedule = (await schedules()).find((s) => s.id === id)
        if (!schedule) throw new SmError('SM_ERR_SCHEDULE_NOT_FOUND', { id: String(id) })
        await bus.emit('schedule_removed', { id: schedule.id, server: schedule.server })
        if (managing) scheduler.sync(await schedules())
        return schedule
      })

      // The manager's player tracker reads every followed console, and hears when a game ends.
      bus.on('server_console', ({ serverName, line }) => players.line(serverName, line))
      bus.on('after_server_status_change', (change) => players.statusChanged(change))
      bus.on('server_added', ({ server }) => players.forget(server.name))
      bus.on('server_removed', ({ name }) => players.forget(name))

      /**
       * Who is online on a game the manager found running: its list command, whose reply the
       * tracker reads on the console like any other (players who joined meanwhile get no fact).
       */
      const seedPlayers = async (server: ServerRecord) => {
        if (!gameProfile(server).players) return
        players.forget(server.name)
        await listPlayers(server).catch((error: unknown) => {
          if (isSmError(error) && error.code === 'SM_ERR_SERVER_NOT_RUNNING') return
          logger.warn(`Who is online on '${server.name}' is not known until it is listed: ${reasonOf(error)}`)
        })
      }

      // A read of the log shows what supervisors saw while nobody recorded it (events, the API, --follow).
      bus.on('events:reading', async () => servers.ingestPending(await all()))

      // The manager follows its servers live, adopts what outlived a supervisor and runs the
      // schedules; a one-shot CLI does none of that.
      bus.on(
        'manager_started',
        async () => {
          managing = true
          scheduler.sync(await schedules())
          const registered = await all()
          players.start()
          await servers.reconcile(registered)
          for (const server of registered) void seedPlayers(server)
          for (const server of registered) {
            const removed = await backups.recover(server).catch((error) => {
              logger.warn(`The backups of '${server.name}' could not be checked: ${reasonOf(error)}`)
              return []
            })
            if (removed.length)
              logger.info(
                `Cleaned up after interrupted backups or restores of '${server.name}': ${removed.join(', ')}.`,
              )
          }
        },
        { timeoutMs: 0 },
      )
      bus.on('kernel:stopping', () => {
        managing = false
        scheduler.stop()
        servers.close()
        players.close()
      })
    },
    stop() {
      stopScheduler?.()
      control?.close()
      tracker?.close()
    },
  }
}

/** Refuses a name that cannot be a server's, or is taken. */
function checkNewName(name: unknown, servers: readonly ServerRecord[]): asserts name is string {
  if (typeof name !== 'string' || !NAME.test(name))
    throw new SmError('SM_ERR_SERVER_INVALID_NAME', { server: String(name) })
  const taken = servers.find((s) => s.name === name)
  if (taken) throw new SmError('SM_ERR_SERVER_EXISTS', { server: name, dir: taken.dir })
}

/** The record for a directory being added, or the coded reason it cannot be. */
async function describe(
  request: AddServer,
  servers: readonly ServerRecord[],
  places: Parameters<typeof dirConflict>[2],
): Promise<ServerRecord> {
  const { name } = request
  checkNewName(name, servers)
  const dir = resolve(String(request.dir ?? ''))
  const unusable = (reason: string) => new SmError('SM_ERR_SERVER_DIR_UNUSABLE', { dir, reason })
  if (!existsSync(dir)) throw unusable('it does not exist')
  if (!statSync(dir).isDirectory()) throw unusable('it is not a directory')
  const conflict = dirConflict(dir, servers, places)
  if (conflict) throw unusable(conflict)
  const profile = request.profile ?? detectProfile(dir)
  if (!PROFILE_NAMES.includes(profile))
    throw new SmError('SM_ERR_SERVER_PROFILE_INVALID', {
      server: name,
      field: 'profile',
      reason: `'${String(profile)}' is not one of ${PROFILE_NAMES.join(', ')}`,
    })
  const command = request.command !== undefined ? { command: request.command, args: [] } : defaultCommand(profile, dir)
  if (!command) throw new SmError('SM_ERR_SERVER_NO_COMMAND', { dir })
  if (request.worldDir !== undefined && !isInside(dir, resolve(dir, request.worldDir)))
    throw unusable(`the world directory '${request.worldDir}' is outside it`)
  const own = profileFields(name, dir, request)
  return {
    name,
    dir,
    profile,
    command: command.command,
    args: [...(request.args ?? command.args)],
    env: { ...(request.env ?? {}) },
    stopCommand: request.stopCommand ?? BUILT_IN_PROFILES[profile].stopCommand,
    worldDir: request.worldDir,
    ...own,
    addedAt: new Date().toISOString(),
  }
}

/** How a profile's server is started when no --command is given; undefined when it cannot be known. */
function defaultCommand(profile: ProfileName, dir: string): { command: string; args: readonly string[] } | undefined {
  if (profile === 'bedrock') return { command: './bedrock_server', args: [] }
  const args = profile === 'java' ? javaLaunch(dir) : undefined
  return args ? { command: 'java', args } : undefined
}

/** The profile fields a server sets over its profile's, checked. */
function profileFields(server: string, dir: string, request: AddServer): Partial<ServerRecord> {
  const refuse = (field: string, reason: string) =>
    new SmError('SM_ERR_SERVER_PROFILE_INVALID', { server, field, reason })
  const pattern = (field: string, source: string | undefined) => {
    if (source === undefined) return undefined
    const problem = patternProblem(String(source))
    if (problem) throw refuse(field, problem)
    return String(source)
  }
  const own: { -readonly [K in keyof ServerRecord]?: ServerRecord[K] } = {}
  const readyLine = pattern('ready line', request.readyLine)
  if (readyLine !== undefined) own.readyLine = readyLine
  if (request.errorLines !== undefined)
    own.errorLines = request.errorLines.map((line) => pattern('error line', line) as string)
  if (request.sayCommand !== undefined) {
    const say = String(request.sayCommand).trim()
    if (!say.includes('{message}') || /[\r\n\0]/.test(say))
      throw refuse('say command', "it must be one line holding '{message}' (e.g. 'say {message}')")
    own.sayCommand = say
  }
  if (request.configFiles !== undefined) {
    for (const file of request.configFiles)
      if (!file || !isInside(dir, resolve(dir, file)) || resolve(dir, file) === resolve(dir))
        throw refuse('config file', `'${file}' is not a file inside the server directory`)
    own.configFiles = [...new Set(request.configFiles)]
  }
  if (request.hotBackup !== undefined) {
    const steps = parseHotBackup(String(request.hotBackup))
    if (typeof steps === 'string') throw refuse('hot backup', steps)
    own.hotBackup = steps
  }
  return own
}

function info(server: ServerRecord): ServerInfo {
  const dirExists = existsSync(server.dir)
  return { ...server, world: worldOf(server), dirExists }
}

function readProperties(server: ServerRecord): ServerProperties {
  const file = join(server.dir, PROPERTIES)
  if (!existsSync(file)) throw new SmError('SM_ERR_SERVER_PROPERTIES_MISSING', { server: server.name, file })
  return new ServerProperties(readFileSync(file, 'utf8'))
}

async function setProperties(bus: BusScope, server: ServerRecord, properties: Record<string, string>) {
  if (properties === null || typeof properties !== 'object' || Array.isArray(properties))
    throw new SmError('SM_ERR_SERVER_PROPERTY_INVALID', {
      server: server.name,
      key: '(properties)',
      reason: 'give the changes as an object of key → value',
    })
  const file = readProperties(server)
  const present = Object.keys(file.entries())
  // Null-prototype records: every key in them is one the caller gave (a `__proto__` key is data).
  const wanted: Record<string, string> = Object.create(null)
  for (const [key, raw] of Object.entries(properties)) {
    const value = String(raw)
    const problem = propertyProblem(key, value, present)
    if (problem) throw new SmError('SM_ERR_SERVER_PROPERTY_INVALID', { server: server.name, key, reason: problem })
    wanted[key] = value
  }
  const outcome = await performAction(bus, {
    before: 'before_properties_change',
    after: 'after_properties_change',
    payload: { serverName: server.name, properties: wanted },
    perform: async () => {
      const changed: Record<string, { from: string | undefined; to: string }> = Object.create(null)
      // Only what differs is a change: a form sends every key, with one edited.
      for (const [key, value] of Object.entries(wanted)) {
        if (file.get(key) === value) continue
        changed[key] = { from: file.get(key), to: value }
        file.set(key, value)
      }
      // A crash leaves the old file or the new one.
      writeFileWhole(join(server.dir, PROPERTIES), file.toString())
      return { changed }
    },
    message: () => `server.properties of '${server.name}' updated.`,
  })
  return settled(outcome, server.name, 'The server.properties change of')
}

/** Deletes a server's directory as the delete_server_data action, refusing paths no server should own. */
async function deleteData(bus: BusScope, server: ServerRecord, dataDir: string): Promise<void> {
  const refuse = (reason: string) =>
    new SmError('SM_ERR_SERVER_DELETE_REFUSED', { server: server.name, dir: server.dir, reason })
  const unsafe = [sep, homedir(), resolve(dataDir), process.cwd()].map((p) => resolve(p))
  if (unsafe.includes(resolve(server.dir)) || isInside(server.dir, resolve(dataDir)))
    throw refuse('it is the root, a home, the data directory or holds it; delete it by hand if you mean it')
  const outcome = await performAction(bus, {
    before: 'before_delete_server_data',
    after: 'after_delete_server_data',
    payload: { serverName: server.name, dir: server.dir },
    perform: async () => {
      try {
        rmSync(server.dir, { recursive: true, force: true })
      } catch (error) {
        throw refuse(reasonOf(error))
      }
    },
    message: () => `Deleted ${server.dir}.`,
  })
  settled(outcome, server.name, 'Deleting the files of')
}
