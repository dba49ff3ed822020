/** The servers contract's commands that make a server ready to run: installed from an archive, its EULA accepted. */
import { z } from 'zod'
import { command } from '../../../kernel'
import { named, serverDoor, serverRecord } from './records'

/** What an install or an update takes: the part of a multipart request that holds the server. */
export const SERVER_ARCHIVE =
  'the server: a Bedrock Dedicated Server zip, a Java Edition server jar, or a zip of a server folder (one folder inside is fine)'

/** The commands of this area, declared with the others in services/servers/contract.ts. */
export const installCommands = {
  /** Creates a server from a Bedrock server zip or directory (the server_install action) and registers it. */
  'servers:install': command(
    named.extend({ from: z.string(), dir: z.string().optional(), host: z.string().optional() }),
    serverRecord,
    {
      host: { sends: 'from' },
      http: {
        method: 'post',
        path: '/servers/install',
        name: 'install_server',
        summary:
          'Install a server from an uploaded archive into paths.servers/<name> (or dir) and add it; its EULA, if it has one, is left for an admin to accept',
        tags: ['Servers'],
        access: 'admin',
        upload: { field: 'archive', to: 'from', description: SERVER_ARCHIVE },
        input: z.object({
          name: z.string().min(1).max(64),
          dir: z.string().min(1).max(4096).optional().meta({ description: 'where to put it (empty or new)' }),
        }),
        status: 201,
        key: 'server',
        response: 'ServerInstalled',
        errors: {
          409: 'A server of that name exists.',
          422: 'The archive holds no server, the directory is not empty, or the request is not valid.',
        },
      },
    },
  ),
  /**
   * Whether the server's game needs its EULA accepted and whether it is; with `accept`, accepts
   * it (writes eula=true: an admin's explicit act, never done by itself).
   */
  'servers:eula': command(
    named.extend({ accept: z.boolean().optional() }),
    z.object({
      needed: z.boolean().describe("whether the server's game runs only with its EULA accepted (Java Edition)"),
      accepted: z.boolean(),
      file: z.string(),
      url: z.string().describe('where the EULA is to be read'),
    }),
    {
      http: [
        serverDoor({
          method: 'get',
          path: '/servers/:name/eula',
          right: 'view',
          name: 'server_eula',
          summary: "Whether the server's game EULA is needed and accepted",
          access: 'user',
          // Only a look: accepting is the POST, an admin's explicit act.
          input: z.object({}),
          response: 'EulaState',
        }),
        serverDoor({
          method: 'post',
          path: '/servers/:name/eula',
          right: 'settings',
          name: 'accept_server_eula',
          summary: "Accept the server's game EULA (an admin's explicit act; server-manager never does it by itself)",
          access: 'admin',
          input: z.object({ accept: z.literal(true).describe('true: you have read the EULA and agree') }),
          message: "The EULA of '{name}' is accepted: it can be started.",
          response: 'EulaAccepted',
          errors: { 422: "The server's game has no EULA to accept." },
        }),
      ],
    },
  ),
}
