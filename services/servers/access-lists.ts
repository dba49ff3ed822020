import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { type BusScope, isSmError, performAction, reasonOf, SmError } from '../../kernel'
import { SerialQueue } from '../../lib/serial-queue'
import { writeFileWhole } from '../../lib/whole-file'
import {
  ACCESS_LISTS,
  ACTIVE,
  type AccessChange,
  type AccessEntry,
  type AccessListName,
  type ServerRecord,
} from './contract'
import type { ServerControl } from './control'
import { settled } from './control-checks'
import type { PlayerRecord } from './player-history'
import { type AccessListProtocol, consoleMessage, gameProfile, matches } from './profiles'

type Entry = Record<string, unknown>
type Done = Omit<AccessChange, 'players'>

const WORDS = {
  allowlist: {
    action: 'allowlist_change',
    added: 'added to the allowlist of',
    already: 'was already on the allowlist of',
    removed: 'removed from the allowlist of',
    absent: 'was not on the allowlist of',
  },
  operators: {
    action: 'operator_change',
    added: 'is now an operator of',
    already: 'was already an operator of',
    removed: 'is no longer an operator of',
    absent: 'was not an operator of',
  },
} as const

/**
 * The allowlist and operators of each server, as its profile describes them. While the game runs,
 * a change goes to its console where the profile has a command for it (a command_send action
 * inside: the game resolves the name and writes its own file; a reply its profile's error lines
 * call a refusal fails the change); otherwise the manager edits the JSON file whole (temp file,
 * then rename), taking a player's id from the player history where the file needs one, and a
 * running game is told to read it again. Each change is the allowlist_change or operator_change
 * action, so plugins may veto it and it is a fact.
 */
export class AccessLists {
  readonly #bus: BusScope
  readonly #control: ServerControl
  readonly #history: (server: string) => Promise<PlayerRecord[]>
  /** One change per server and list at a time: a file is read, changed and written whole. */
  readonly #queues = new Map<string, SerialQueue>()

  constructor(bus: BusScope, control: ServerControl, history: (server: string) => Promise<PlayerRecord[]>) {
    this.#bus = bus
    this.#control = control
    this.#history = history
  }

  /** Who is on the list, as its file says now. */
  async list(server: ServerRecord, list: AccessListName): Promise<AccessEntry[]> {
    const protocol = protocolOf(server, list)
    const players = await this.#history(server.name)
    return readEntries(server, protocol)
      .filter((entry) => isMember(protocol, entry))
      .map((entry) => describe(protocol, entry, players))
  }

  /** Adds a player to the list or removes them, by the console or the file (see the class). */
  async change(
    server: ServerRecord,
    list: AccessListName,
    change: 'add' | 'remove',
    player: string,
  ): Promise<AccessChange> {
    const protocol = protocolOf(server, list)
    const name = checkPlayer(server.name, player)
    const key = `${server.name}\n${list}`
    const queue = this.#queues.get(key) ?? new SerialQueue()
    this.#queues.set(key, queue)
    const done = await queue.run(async () => {
      const running = ACTIVE.includes((await this.#control.status(server)).status)
      const command = running ? protocol[change] : undefined
      // Worked out before the hooks: a change that cannot be made is refused as such, not vetoed.
      const edit = command ? undefined : await this.#plan(server, list, protocol, change, name, running)
      const words = WORDS[list]
      const outcome = await performAction(this.#bus, {
        before: `before_${words.action}`,
        after: `after_${words.action}`,
        payload: { serverName: server.name, change, player: name },
        perform: (): Promise<Done> =>
          command
            ? this.#byConsole(server, list, protocol, change, name, command)
            : this.#byFile(server, list, protocol, change, running, edit as Edit),
        message: (done) => done.message,
      })
      return settled(outcome, server.name, `The ${list} change of`)
    })
    return { ...done, players: await this.list(server, list) }
  }

  async #byConsole(
    server: ServerRecord,
    list: AccessListName,
    protocol: AccessListProtocol,
    change: 'add' | 'remove',
    name: string,
    command: string,
  ): Promise<Done> {
    let reply: readonly string[]
    try {
      reply = (await this.#control.send(server, command.replaceAll('{name}', consoleName(name)))).reply
    } catch (error) {
      if (!isSmError(error) || error.code !== 'SM_ERR_SERVER_COMMAND_REFUSED') throw error
      const { line, reply } = (error as SmError<'SM_ERR_SERVER_COMMAND_REFUSED'>).params
      throw new SmError('SM_ERR_SERVER_ACCESS_REFUSED', {
        server: server.name,
        list,
        player: name,
        change,
        line,
        reply,
      })
    }
    const profile = gameProfile(server)
    const changed = !reply.some((line) =>
      protocol.unchanged.some((pattern) => matches(pattern, consoleMessage(profile, line).trim()) !== null),
    )
    return { changed, via: 'console', message: `${said(server, list, change, changed, name)} (by its console).` }
  }

  async #byFile(
    server: ServerRecord,
    list: AccessListName,
    protocol: AccessListProtocol,
    change: 'add' | 'remove',
    running: boolean,
    edit: Edit,
  ): Promise<Done> {
    const done = said(server, list, change, edit.changed, edit.name)
    if (!edit.changed) return { changed: false, via: 'file', message: `${done}.` }
    writeEntries(server, protocol, edit.entries)
    if (!running || !protocol.reload)
      return { changed: true, via: 'file', message: `${done}; ${protocol.file} is read when it starts.` }
    try {
      await this.#control.send(server, protocol.reload)
    } catch (error) {
      // The file is changed: that is done, and said; the game reads it at its next start.
      const warning = `${protocol.file} of '${server.name}' was changed, but '${protocol.reload}' did not reach the running game (${reasonOf(error)}); it takes effect when the server starts again.`
      return { changed: true, via: 'file', message: `${done}.`, warning }
    }
    return { changed: true, via: 'file', message: `${done}; ${protocol.file} reloaded ('${protocol.reload}').` }
  }

  /** The file's entries after the change, and whether it changes anything. */
  async #plan(
    server: ServerRecord,
    list: AccessListName,
    protocol: AccessListProtocol,
    change: 'add' | 'remove',
    player: string,
    running: boolean,
  ): Promise<Edit> {
    const entries = readEntries(server, protocol)
    const known = (await this.#history(server.name)).filter((p) => p.name.toLowerCase() === player.toLowerCase())
    const id = known.find((p) => p.id)?.id
    const name = known[0]?.name ?? player
    const field = protocol.idField
    const isPlayer = (entry: Entry) =>
      (protocol.named && typeof entry.name === 'string' && entry.name.toLowerCase() === player.toLowerCase()) ||
      (typeof entry[field] === 'string' && entry[field] !== '' && (entry[field] === id || entry[field] === player))
    if (change === 'remove') {
      const kept = entries.filter((entry) => !(isPlayer(entry) && isMember(protocol, entry)))
      return { name, entries: kept, changed: kept.length !== entries.length }
    }
    if (entries.some((entry) => isPlayer(entry) && isMember(protocol, entry))) return { name, entries, changed: false }
    if (!id && protocol.idRequired)
      throw new SmError('SM_ERR_SERVER_PLAYER_ID_UNKNOWN', {
        server: server.name,
        player,
        list,
        file: protocol.file,
        id: field,
        hint: protocol.add && !running ? ', or do it while the server runs (its console looks the name up itself)' : '',
      })
    const entry: Entry = { ...(id ? { [field]: id } : {}), ...(protocol.named ? { name } : {}), ...protocol.fields }
    // An entry of the player's that is not a member (permissions.json's `member`) becomes one.
    const at = entries.findIndex(isPlayer)
    const next = at < 0 ? [...entries, entry] : entries.map((e, i) => (i === at ? { ...e, ...entry } : e))
    return { name, entries: next, changed: true }
  }
}

interface Edit {
  /** The player's name as the history spells it. */
  readonly name: string
  readonly entries: Entry[]
  readonly changed: boolean
}

/** The list's protocol in the server's profile, or the coded refusal of a profile without one. */
function protocolOf(server: ServerRecord, list: AccessListName): AccessListProtocol {
  const protocol = ACCESS_LISTS.includes(list) ? gameProfile(server)[list] : undefined
  if (!protocol)
    throw new SmError('SM_ERR_SERVER_ACCESS_UNKNOWN', {
      server: server.name,
      profile: server.profile,
      list: String(list),
    })
  return protocol
}

/** What a change did, in its list's words: `'Steve' added to the allowlist of 's1'`. */
function said(server: ServerRecord, list: AccessListName, change: 'add' | 'remove', changed: boolean, name: string) {
  const words = WORDS[list]
  const what = change === 'add' ? (changed ? words.added : words.already) : changed ? words.removed : words.absent
  return `'${name}' ${what} '${server.name}'`
}

/** A player name as given, trimmed, or the coded reason it cannot be one. */
function checkPlayer(server: string, player: unknown): string {
  const name = typeof player === 'string' ? player.trim() : ''
  const refuse = (reason: string) =>
    new SmError('SM_ERR_SERVER_PLAYER_INVALID', { server, player: String(player), reason })
  if (!name) throw refuse('it is empty')
  if (name.length > 64) throw refuse('it is longer than 64 characters')
  if (/["\\\p{Cc}]/u.test(name)) throw refuse('it holds a quote, a backslash or a control character')
  return name
}

/** A name as a console argument: quoted when it holds a space (Bedrock gamertags may). */
function consoleName(name: string): string {
  return /\s/.test(name) ? `"${name}"` : name
}

function isMember(protocol: AccessListProtocol, entry: Entry): boolean {
  return protocol.match.every((field) => entry[field] === protocol.fields[field])
}

function describe(protocol: AccessListProtocol, entry: Entry, players: readonly PlayerRecord[]): AccessEntry {
  const id =
    typeof entry[protocol.idField] === 'string' && entry[protocol.idField] ? String(entry[protocol.idField]) : undefined
  const named = protocol.named && typeof entry.name === 'string' ? entry.name : undefined
  return { name: named ?? (id ? players.find((p) => p.id === id)?.name : undefined), id }
}

function fileOf(server: ServerRecord, protocol: AccessListProtocol): string {
  return join(server.dir, protocol.file)
}

/** The file's entries; none when it does not exist yet (the game writes it at its first start). */
function readEntries(server: ServerRecord, protocol: AccessListProtocol): Entry[] {
  const file = fileOf(server, protocol)
  if (!existsSync(file)) return []
  const invalid = (reason: string) =>
    new SmError('SM_ERR_SERVER_ACCESS_FILE_INVALID', { server: server.name, file, reason })
  let value: unknown
  try {
    const text = readFileSync(file, 'utf8')
    value = text.trim() === '' ? [] : JSON.parse(text)
  } catch (error) {
    throw invalid(reasonOf(error))
  }
  if (!Array.isArray(value)) throw invalid('it is not a JSON array')
  const odd = value.findIndex((entry) => entry === null || typeof entry !== 'object' || Array.isArray(entry))
  if (odd >= 0) throw invalid(`its entry ${odd + 1} is not an object`)
  return value as Entry[]
}

/**
 * Writes the file whole to a temporary file and renames it: a crash leaves the old list or the
 * new one. A folder or disk that refuses it is the coded error that says so, not a bug.
 */
function writeEntries(server: ServerRecord, protocol: AccessListProtocol, entries: readonly Entry[]): void {
  const file = fileOf(server, protocol)
  try {
    writeFileWhole(file, `${JSON.stringify(entries, null, 2)}\n`)
  } catch (error) {
    throw new SmError(
      'SM_ERR_SERVER_ACCESS_FILE_UNWRITABLE',
      { server: server.name, file, reason: reasonOf(error) },
      { cause: error },
    )
  }
}
