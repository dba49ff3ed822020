import { existsSync, statSync } from 'node:fs'
import { resolve } from 'node:path'
import { SmError } from '../../kernel'
import { type AddServer, EDITABLE_FIELDS, type EditServer, PROFILE_NAMES, type ServerRecord } from './contract'
import { detectProfile, javaLaunch } from './detect'
import { BUILT_IN_PROFILES, type ProfileName, parseHotBackup, patternProblem } from './profiles'
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

/**
 * A server's record with `request`'s changes, each checked as `describeServer` checks it (the
 * world directory inside the server directory, every regular expression compiling, a done line
 * with commands to follow), and what changed: set fields, and `null` for cleared ones.
 */
export function editServer(
  server: ServerRecord,
  request: EditServer,
): { record: ServerRecord; changes: Record<string, unknown> } {
  const { name, dir, profile } = server
  const refuse = (field: string, reason: string) =>
    new SmError('SM_ERR_SERVER_PROFILE_INVALID', { server: name, field, reason })
  const given = EDITABLE_FIELDS.filter((field) => request[field] !== undefined)
  if (given.length === 0) throw refuse('change', `give at least one of ${EDITABLE_FIELDS.join(', ')}`)
  const changes: Record<string, unknown> = {}
  const line = (field: string, value: string) => {
    if (!value.trim() || /[\r\n\0]/.test(value)) throw refuse(field, 'it must be one line, not empty')
    return value
  }
  if (request.command !== undefined) changes.command = line('command', String(request.command))
  if (request.args !== undefined) changes.args = request.args.map(String)
  if (request.env !== undefined) {
    const env: Record<string, string> = Object.create(null)
    for (const [key, value] of Object.entries(request.env)) {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) throw refuse('environment', `'${key}' is not a variable name`)
      env[key] = String(value)
    }
    changes.env = env
  }
  if (request.stopCommand !== undefined) changes.stopCommand = line('stop command', String(request.stopCommand))
  if (request.worldDir !== undefined) {
    if (request.worldDir !== null && (!request.worldDir || !isInside(dir, resolve(dir, request.worldDir))))
      throw new SmError('SM_ERR_SERVER_DIR_UNUSABLE', {
        dir,
        reason: `the world directory '${request.worldDir}' is outside it`,
      })
    changes.worldDir = request.worldDir
  }
  // The profile fields, as an add checks them; a done line may follow the commands the server has.
  const set = Object.fromEntries(
    (['readyLine', 'errorLines', 'chatLine', 'sayCommand', 'configFiles', 'hotBackup', 'hotBackupDone'] as const)
      .filter((field) => request[field] !== undefined && request[field] !== null)
      .map((field) => [field, request[field]]),
  ) as Partial<AddServer>
  const hotBackup = request.hotBackup === null ? undefined : server.hotBackup
  Object.assign(changes, profileFields(name, dir, profile, set, hotBackup))
  for (const field of ['readyLine', 'errorLines', 'chatLine', 'sayCommand', 'configFiles', 'hotBackup'] as const)
    if (request[field] === null) changes[field] = null
  if (request.hotBackupDone === null || (request.hotBackup === null && request.hotBackupDone === undefined))
    changes.hotBackupDone = null
  return { record: applyEdit(server, changes), changes }
}

/** A record with an edit's changes (`null`: the field cleared); only the editable fields, whatever the fact holds. */
export function applyEdit(server: ServerRecord, changes: Readonly<Record<string, unknown>>): ServerRecord {
  const record: Record<string, unknown> = { ...server }
  for (const field of EDITABLE_FIELDS) {
    if (!Object.hasOwn(changes, field)) continue
    if (changes[field] === null) delete record[field]
    else record[field] = changes[field]
  }
  return record as ServerRecord
}

/** How a profile's server is started when no --command is given; undefined when it cannot be known. */
function defaultCommand(profile: ProfileName, dir: string): { command: string; args: readonly string[] } | undefined {
  if (profile === 'bedrock') return { command: './bedrock_server', args: [] }
  const args = profile === 'java' ? javaLaunch(dir) : undefined
  return args ? { command: 'java', args } : undefined
}

/** The profile fields a server sets over its profile's, checked. */
function profileFields(
  server: string,
  dir: string,
  profile: ProfileName,
  request: Partial<AddServer>,
  hotBackup?: ServerRecord['hotBackup'],
): Partial<ServerRecord> {
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
    if ((own.hotBackup ?? hotBackup) === undefined && base?.kind !== 'commands')
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
