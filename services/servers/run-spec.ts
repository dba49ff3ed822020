import type { BusScope } from '../../kernel'
import type { ServerRecord } from './contract'
import { gameProfile } from './profiles'
import { serverSetting } from './server-settings'
import type { RunSpec, StartMode } from './supervisor/run-files'

/** A setting's value by key (the settings service's, through the bus). */
export type Get = (key: string) => Promise<unknown>

/** The server's restart policy in effect: its own settings, else the global ones. */
export async function restartPolicy(server: ServerRecord, setting: Get): Promise<RunSpec['restart']> {
  const own = (key: string) => serverSetting(server, key, setting)
  return {
    enabled: (await own('restart.enabled')) === true,
    maxRestarts: Number(await own('restart.max_restarts')),
    minUptimeMs: Number(await own('restart.min_uptime_s')) * 1000,
    delayMs: Number(await setting('servers.restart.delay_ms')),
  }
}

/** What a supervisor runs: the server's record and the settings in effect now, written to `spec.json` before each start. */
export async function runSpecOf(server: ServerRecord, mode: StartMode, setting: Get, bus: BusScope): Promise<RunSpec> {
  const n = async (key: string) => Number(await setting(key))
  return {
    name: server.name,
    profile: server.profile,
    game: gameProfile(server),
    cwd: server.dir,
    command: server.command,
    args: await gameArgs(server, setting),
    env: server.env,
    stopCommand: server.stopCommand,
    mode,
    stopTimeoutMs: (await n('servers.stop_timeout_s')) * 1000,
    termTimeoutMs: (await n('servers.kill_timeout_s')) * 1000,
    restart: await restartPolicy(server, setting),
    log: { maxBytes: await n('servers.log_max_bytes'), keep: await n('retention.logs') },
    metrics: await bus.request('metrics:sampling', {}),
  }
}

/** The game's arguments: a Java server's heap (`memory_mb`) goes first, unless its own arguments size it. */
async function gameArgs(server: ServerRecord, setting: Get): Promise<readonly string[]> {
  const memory = await serverSetting(server, 'memory_mb', setting)
  if (gameProfile(server).name !== 'java' || typeof memory !== 'number') return server.args
  if (server.args.some((arg) => /^-Xm[sx]/.test(arg))) return server.args
  return [`-Xms${memory}M`, `-Xmx${memory}M`, ...server.args]
}
