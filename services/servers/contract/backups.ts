/** A server's backups: what an archive is, and what a backup answers. */
import { z } from 'zod'
import { command, queryFlag } from '../../../kernel'
import { PIECE_BYTES } from '../../../lib/pieces'
import { SERVER_ARCHIVE } from './install'
import { nameAndFile, named, serverArg, serverDoor, strings } from './records'

export const backupKind = z.enum(['world', 'config'])
export type BackupKind = z.output<typeof backupKind>
export const backupType = z.enum(['world', 'config', 'all'])
export type BackupType = z.output<typeof backupType>

/** One archive in a server's backup folder. */
export const backupFile = z.object({ file: z.string(), kind: backupKind, bytes: z.number(), createdAt: z.string() })
export type BackupFile = Readonly<z.output<typeof backupFile>>

/** A part of an `all` backup the server does not have (no world directory, no config file). */
export const backupSkip = z.object({
  kind: backupKind,
  /** What is missing, as a sentence: `the server 'lobby' has no config files (server.properties)`. */
  reason: z.string(),
})
export type BackupSkip = Readonly<z.output<typeof backupSkip>>

/** How a world was copied: `hot` (the server kept running), `stop-start` or `cold` (it was not running). */
export const copyMethod = z.enum(['hot', 'stop-start', 'cold'])
export type CopyMethod = z.output<typeof copyMethod>

export const backupReply = z.object({
  files: z.array(backupFile).readonly(),
  method: copyMethod,
  /** What retention removed after this backup. */
  pruned: strings,
  /** The parts of an `all` backup that the server does not have; always empty for `world` or `config`. */
  skipped: z.array(backupSkip).readonly(),
  /** Said when a running server was stopped for it: its profile has no hot backup, or it was still starting. */
  warning: z.string().optional(),
})
export type BackupReply = Readonly<z.output<typeof backupReply>>

/** The commands of this area, declared with the others in services/servers/contract.ts. */
export const backupsCommands = {
  /**
   * Backs up the world, config or both (the backup action); retention applies after. A running
   * server hot where its profile can, else stopped and started again with a `warning`;
   * `stopStart`: stopped even where it could be hot.
   */
  'servers:backup': command(
    named.extend({ type: backupType.optional(), stopStart: z.boolean().optional() }),
    backupReply,
  ),
  /** The server's backups, newest first. */
  'servers:backups': command(named, z.array(backupFile), {
    host: { reads: true },
    api: {
      name: 'listBackups',
      kind: 'read',
      params: [serverArg],
      description: "A server's backups, newest first: `[{ file, kind, bytes, createdAt }]`.",
    },
    http: serverDoor({
      method: 'get',
      path: '/servers/:name/backups',
      right: 'backups',
      name: 'list_backups',
      summary: "A server's backups, newest first",
      access: 'moderator',
      key: 'backups',
      response: 'BackupList',
    }),
  }),
  /** Deletes one of the server's backups (only a name `servers:backups` lists; a `servers:backup_deleted` fact). */
  'servers:delete_backup': command(named.extend({ file: z.string() }), z.object({ deleted: z.string() }), {
    http: serverDoor({
      method: 'delete',
      path: '/servers/:name/backups/:file',
      right: 'backups',
      name: 'delete_backup',
      summary: 'Delete one backup (a name the list gives)',
      access: 'admin',
      paramMax: 300,
      response: 'BackupDeleted',
      errors: {
        404: 'No server of that name, or no backup of that name.',
        409: 'A backup, restore or export of the server is under way.',
      },
    }),
  }),
  /** Where one of the server's backups is, for a download (only a name `servers:backups` lists). */
  'servers:backup_file': command(
    named.extend({ file: z.string() }),
    backupFile.extend({
      path: z.string(),
      /** The server is on another host: `path` is there; read it with servers:backup_bytes. */
      host: z.string().optional(),
    }),
    { host: { reads: true } },
  ),
  /** Up to PIECE_BYTES of one of the server's backups, from `offset` (a download of a server on another host). */
  'servers:backup_bytes': command(
    named.extend({
      file: z.string(),
      offset: z.number().int().min(0),
      length: z.number().int().min(1).max(PIECE_BYTES),
    }),
    z.object({ data: z.string(), eof: z.boolean() }),
    { host: { reads: true } },
  ),
  /** Puts a backup back (the restore action); a running server only with `stopStart`. */
  'servers:restore': command(nameAndFile, z.object({ restored: z.string(), safety: z.string() })),
  /** Applies retention now, or keeps only `keep` of each kind (the prune_backups action). */
  'servers:prune': command(
    named.extend({ keep: z.number().int().optional() }),
    z.object({ pruned: z.array(z.string()) }),
    {
      api: {
        name: 'pruneBackups',
        kind: 'change',
        params: [
          serverArg,
          { field: 'keep', schema: z.number().int().min(0).optional(), default: 'retention.backups' },
        ],
        message: "Backups of '{name}' pruned.",
        description:
          "Applies the backup retention now, or keeps `keep` of each kind; resolves to `{ status: 'success', message, pruned }`.",
      },
    },
  ),
  /**
   * Writes the world to an archive (world_export): `file`, or in a directory `<name>.mcworld`
   * (Bedrock) or `<name>.zip`; a running server is copied as a backup is (hot, or stopped with a `warning`).
   */
  'servers:export': command(
    nameAndFile,
    z.object({ file: z.string(), bytes: z.number(), method: copyMethod, warning: z.string().optional() }),
  ),
  /** Makes a world archive the world (world_import); a running server only with `stopStart`. */
  'servers:import': command(nameAndFile, z.object({ imported: z.string(), safety: z.string().optional() }), {
    host: { sends: 'file' },
  }),
  /** Replaces a bedrock server's binaries from a zip, keeping its config and worlds, after a backup. */
  'servers:update': command(
    named.extend({ from: z.string(), stopStart: z.boolean().optional() }),
    z.object({
      replaced: z.array(z.string()).meta({ description: 'the top-level files and folders replaced' }),
      backup: z.array(backupFile).readonly().meta({ description: 'what was backed up before' }),
    }),
    {
      host: { sends: 'from' },
      http: serverDoor({
        method: 'post',
        path: '/servers/:name/update',
        // It replaces the game's files, as a file write does: the files right's trust.
        right: 'files',
        name: 'update_server',
        summary:
          "Update a server from an uploaded release (Bedrock zip, Java jar or zip), keeping its config files and worlds; everything is backed up first. A running server only with stop: 'true' (stopped, updated, started again)",
        access: 'admin',
        upload: { field: 'archive', to: 'from', description: SERVER_ARCHIVE },
        input: z.object({ stop: queryFlag() }),
        rename: { stop: 'stopStart' },
        response: 'ServerUpdated',
        errors: {
          409: "The server is running (send stop: 'true'), or busy with another power action, backup or restore.",
          422: 'The archive holds no server of its game, or the server is generic (update its files instead).',
        },
      }),
    },
  ),
}
