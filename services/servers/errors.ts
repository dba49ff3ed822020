import { defineErrors, type ErrorMapOf, spec } from '../../kernel/error-catalogue'

/** The servers service's error codes (docs/errors.md). */
export const serversErrors = defineErrors('servers', {
  SM_ERR_SERVER_NOT_FOUND: spec<{ server: string; hint: string }>({
    status: 404,
    exit: 66,
    when: 'A server name that is not registered.',
    message: (p) => `No server is named '${p.server}'.${p.hint} 'server-manager server list' shows them.`,
  }),
  SM_ERR_SERVER_EXISTS: spec<{ server: string; dir: string }>({
    status: 409,
    exit: 65,
    when: 'A server was added under a name that is taken.',
    message: (p) =>
      `A server named '${p.server}' is already registered (${p.dir}). Choose another name, or remove it first.`,
  }),
  SM_ERR_SERVER_INVALID_NAME: spec<{ server: string }>({
    status: 422,
    exit: 64,
    when: 'A server name that cannot be one.',
    message: (p) =>
      `'${p.server}' cannot be a server name. Use up to 64 letters, digits, '_' and '-', starting with a letter or digit.`,
  }),
  SM_ERR_SERVER_DIR_UNUSABLE: spec<{ dir: string; reason: string }>({
    status: 422,
    exit: 66,
    when: "A server's directory is missing, not a directory, or already another server's.",
    message: (p) => `The directory '${p.dir}' cannot be used for this server: ${p.reason}.`,
  }),
  SM_ERR_SERVER_NO_COMMAND: spec<{ dir: string }>({
    status: 422,
    exit: 64,
    when: 'A directory without bedrock_server was added without --command.',
    message: (p) =>
      `'${p.dir}' holds no bedrock_server, so server-manager cannot tell how to start it. Add it with --command <executable> (and --arg, --env, --stop-command, --world-dir as needed).`,
  }),
  SM_ERR_SERVER_PROPERTIES_MISSING: spec<{ server: string; file: string }>({
    status: 404,
    exit: 66,
    when: 'A server has no server.properties to read or change.',
    message: (p) =>
      `The server '${p.server}' has no ${p.file}. Bedrock servers ship one; put it back (or start the server once) and try again.`,
  }),
  SM_ERR_SERVER_PROPERTY_INVALID: spec<{ server: string; key: string; reason: string }>({
    status: 422,
    exit: 64,
    when: 'A server.properties change with an unknown key or a value out of range.',
    message: (p) => `'${p.key}' cannot be set for '${p.server}': ${p.reason}. Nothing was changed.`,
  }),
  SM_ERR_SERVER_CHANGE_CANCELLED: spec<{ server: string; action: string; by: string; reason: string }>({
    status: 409,
    exit: 1,
    when: 'A before_* hook vetoed an action on a server.',
    message: (p) => `${p.action} for '${p.server}' was cancelled by '${p.by}': ${p.reason}. Nothing was changed.`,
  }),
  SM_ERR_SERVER_DELETE_REFUSED: spec<{ server: string; dir: string; reason: string }>({
    status: 409,
    exit: 77,
    when: "Deleting a server's files was refused (an unsafe path, or no confirmation).",
    message: (p) => `The files of '${p.server}' in ${p.dir} were not deleted: ${p.reason}.`,
  }),
})

declare module '../../kernel/error-catalogue' {
  interface ErrorMap extends ErrorMapOf<typeof serversErrors> {}
}
