import { existsSync, statSync } from 'node:fs'
import { resolve } from 'node:path'
import { SmError } from '../../kernel'
import type { AddServer, ServerRecord } from './contract'
import { detectProfile, javaLaunch } from './detect'
import { BUILT_IN_PROFILES, PROFILE_NAMES, type ProfileName, parseHotBackup, patternProblem } from './profiles'
import { dirConflict, isInside } from './server-dir'

const NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/

/** Refuses a name that cannot be a server's, or is taken. */
export function checkNewName(name: unknown, servers: readonly ServerRecord[]): asserts name is string {
  if (typeof name !== 'string' || !NAME.test(name))
    throw new SmError('SM_ERR_SERVER_INVALID_NAME', { server: String(name) })
  const taken = servers.find((s) => s.name === name)
  if (taken) throw new SmError('SM_ERR_SERVER_EXISTS', { server: name, dir: taken.dir })
}

/** The record for a directory being added, or the coded reason it cannot be. */
export function describeServer(
  request: AddServer,
  servers: readonly ServerRecord[],
  places: Parameters<typeof dirConflict>[2],
): ServerRecord {
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
  const own = profileFields(name, dir, profile, request)
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
function profileFields(server: string, dir: string, profile: ProfileName, request: AddServer): Partial<ServerRecord> {
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
  const done = pattern('hot-backup done line', request.hotBackupDone)
  if (done !== undefined) {
    // Over commands: the server's own, or its profile's (Bedrock's save query knows its end).
    const base = BUILT_IN_PROFILES[profile].hotBackup
    if (own.hotBackup === undefined && base?.kind !== 'commands')
      throw refuse(
        'hot-backup done line',
        base
          ? "its profile's hot backup (save hold, save query) knows when it is done"
          : 'give the commands too (--hot-backup)',
      )
    own.hotBackupDone = done
  }
  const chat = pattern('chat line', request.chatLine)
  if (chat !== undefined) own.chatLine = chat
  return own
}
