import { statSync } from 'node:fs'
import {
  type CommandName,
  type CommandPayload,
  type CommandReply,
  declaredService,
  type Service,
  SmError,
} from '../../kernel'
import { HOSTS, type HostsLink } from '../bridge/contract'
import { filesCommands } from './contract'
import { filesDeclaration } from './declarations'
import { FileManager } from './file-manager'
import { Stager } from './stage'

export type * from './contract'

type FilesCommand = Extract<CommandName, `files:${string}`>

/**
 * The file manager of servers' directories: list, read and save text files, upload, download,
 * rename, make folders, delete; every path contained in the server's directory by real paths,
 * every change an action (hooks, a fact without contents). The web's file routes and page use it.
 * A command about a server on another host goes to that host's agent, whose file manager answers
 * it (a file to upload from this machine is sent there first); files:stage receives such a file.
 */
export function filesService(): Service {
  let stager: Stager | undefined
  return {
    ...declaredService(filesDeclaration),
    async start({ bus, logger, registry, config }) {
      const files = new FileManager(bus)
      const received = new Stager(config.dataDir, logger)
      await received.open()
      stager = received
      const hosts = () => (registry.has(HOSTS) ? registry.resolve(HOSTS) : undefined)
      /** Answers `command` here for this machine's servers; for a server on another host, there. */
      const handle = <K extends FilesCommand>(
        command: K,
        here: (payload: CommandPayload<K>) => Promise<CommandReply<K>>,
        // A change records facts there, taken in before the answer (call); a read records none.
        there: (link: HostsLink, host: string, payload: CommandPayload<K>, actor: string) => Promise<unknown> = (
          link,
          host,
          payload,
          actor,
        ) =>
          filesCommands[command].doors?.host?.reads
            ? link.request(host, command, payload, actor)
            : link.call(host, command, payload, actor),
      ) =>
        bus.handle(command, async (payload, meta) => {
          const { host } = await bus.request('servers:info', { name: (payload as { name: string }).name })
          if (host === undefined) return here(payload)
          const link = hosts()
          if (!link)
            throw new SmError('SM_ERR_HOST_UNREACHABLE', {
              host,
              reason: 'this manager is not on a NATS broker (nats.url)',
            })
          return (await there(link, host, payload, meta.actor)) as CommandReply<K>
        })
      handle('files:list', ({ name, path }) => files.list(name, path))
      handle('files:read', ({ name, path }) => files.read(name, path))
      handle('files:write', ({ name, path, text, expectedHash }) => files.write(name, path, text, expectedHash))
      handle(
        'files:upload',
        ({ name, path, from, overwrite, move }) => files.upload(name, path, from, { overwrite, move }),
        // `from` is a file on this machine: sent there first, where the upload takes it (moves it:
        // the copy there is this upload's). Anything else is refused: it is not here to send.
        async (link, host, payload, actor) => {
          if (!statSync(payload.from, { throwIfNoEntry: false })?.isFile())
            throw new SmError('SM_ERR_FILE_SOURCE_MISSING', { from: payload.from, reason: 'it is not a file here' })
          return link.sending(host, payload.from, actor, (there) =>
            link.call(host, 'files:upload', { ...payload, from: there, move: true }, actor),
          )
        },
      )
      handle(
        'files:download',
        ({ name, path }) => files.download(name, path),
        async (link, host, payload, actor) => ({
          ...((await link.request(host, 'files:download', payload, actor)) as object),
          host,
        }),
      )
      handle(
        'files:read_bytes',
        ({ name, path, identity, offset, length }) => files.readBytes(name, path, identity, offset, length),
        // No more than the broker carries in one message: the reader goes on from what came.
        (link, host, payload, actor) =>
          link.request(
            host,
            'files:read_bytes',
            { ...payload, length: Math.min(payload.length, link.pieceBytes) },
            actor,
          ),
      )
      handle('files:rename', ({ name, path, to }) => files.rename(name, path, to))
      handle('files:mkdir', ({ name, path }) => files.mkdir(name, path))
      handle('files:delete', ({ name, path }) => files.delete(name, path))
      bus.handle('files:stage', (piece) => received.receive(piece))
      bus.handle('files:unstage', async ({ upload }) => {
        await received.remove(upload)
        return undefined
      })
    },
    async stop() {
      await stager?.close()
      stager = undefined
    },
  }
}
