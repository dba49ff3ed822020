import { defineErrors, type ErrorMapOf, spec } from '../../kernel/error-catalogue'

/** The bridge's and the manager daemon's error codes (docs/errors.md). */
export const bridgeErrors = defineErrors('bridge', {
  SM_ERR_MANAGER_RUNNING: spec<{ dataDir: string; pid: string }>({
    status: 409,
    exit: 75,
    when: 'A second manager was started on a data directory that already has one.',
    message: (p) =>
      `A manager already runs on '${p.dataDir}' (PID ${p.pid}). Use it (every command talks to it), or stop it first: kill ${p.pid}.`,
  }),
  SM_ERR_MANAGER_NOT_RUNNING: spec<{ dataDir: string }>({
    status: 409,
    exit: 3,
    when: 'A command that needs the running manager (web stop) found none.',
    message: (p) => `No manager runs on ${p.dataDir}. Start one with 'server-manager start' (or 'start --detached').`,
  }),
  SM_ERR_MANAGER_START_FAILED: spec<{ reason: string; log: string }>({
    status: 500,
    exit: 70,
    when: 'start --detached: the manager in the background ended or did not answer.',
    message: (p) => `The manager did not start in the background: ${p.reason}. Its output is in ${p.log}.`,
  }),
  SM_ERR_BRIDGE_UNREACHABLE: spec<{ path: string; reason: string }>({
    status: 503,
    exit: 69,
    when: "The running manager's socket exists but cannot be used.",
    message: (p) =>
      `Cannot talk to the manager at '${p.path}': ${p.reason}. Check 'server-manager status'; if the manager hangs, stop it and run the command again.`,
  }),
  SM_ERR_BRIDGE_DISCONNECTED: spec<{ command: string }>({
    status: 503,
    exit: 69,
    when: 'The manager went away while a command waited for its reply.',
    message: (p) =>
      `The manager stopped before answering '${p.command}'. Whether it was done is unknown: check with 'server-manager events', then try again.`,
  }),
  SM_ERR_BRIDGE_BAD_MESSAGE: spec<{ reason: string }>({
    status: 400,
    exit: 65,
    when: 'A message on the bus bridge was not valid (not JSON, too large, unknown type, a forged actor).',
    message: (p) => `The bridge refused a message: ${p.reason}. Use the server-manager command or its client library.`,
  }),
  SM_ERR_BRIDGE_HOST_FACT_REFUSED: spec<{ host: string; seq: string; type: string; reason: string }>({
    status: 403,
    exit: 77,
    when: "A host agent's fact was not taken into the manager's log: of a kind a host does not record, about a server not its own, with a decoy field, or at a time it could not know (logged; the host's log keeps it).",
    message: (p) =>
      `A fact of host '${p.host}' (#${p.seq}, ${p.type}) was refused: ${p.reason}. It is not in this manager's log. If the host is yours, check its clock and its agent's version; if not, its credentials are in someone else's hands: make new ones (agent credentials ${p.host}) and remove the old entry from the broker.`,
  }),
  SM_ERR_BRIDGE_PATH_TOO_LONG: spec<{ path: string }>({
    status: 500,
    exit: 73,
    when: "The data directory's path is too long for a local socket.",
    message: (p) =>
      `The socket path '${p.path}' is longer than the 107 bytes a UNIX socket allows. Use a data directory with a shorter path (SM_DATA_DIR).`,
  }),
})

declare module '../../kernel/error-catalogue' {
  interface ErrorMap extends ErrorMapOf<typeof bridgeErrors> {}
}
