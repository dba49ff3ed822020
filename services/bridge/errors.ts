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
  SM_ERR_BRIDGE_PATH_TOO_LONG: spec<{ path: string }>({
    status: 500,
    exit: 73,
    when: "The data directory's path is too long for a local socket.",
    message: (p) =>
      `The socket path '${p.path}' is longer than the 107 bytes a UNIX socket allows. Use a data directory with a shorter path (SM_DATA_DIR).`,
  }),
  SM_ERR_NATS_CONFIG: spec<{ setting: string; reason: string }>({
    status: 400,
    exit: 78,
    when: 'A NATS setting (or --nats) cannot be used: a URL that is not nats:// or tls://, a credentials file that is missing or not a NATS credentials or seed file.',
    message: (p) =>
      `The NATS setting ${p.setting} cannot be used: ${p.reason}. Fix it with 'server-manager setting set ${p.setting} <value>' (docs/settings.md).`,
  }),
  SM_ERR_NATS_UNREACHABLE: spec<{ url: string; reason: string }>({
    status: 503,
    exit: 69,
    when: 'The NATS broker could not be reached, or refused our credentials. A manager keeps trying in the background; a client gives up at once.',
    message: (p) =>
      `Cannot reach the NATS broker at ${p.url}: ${p.reason}. Check that nats-server runs there and that the address, port, TLS and credentials are right.`,
  }),
  SM_ERR_NATS_NO_MANAGER: spec<{ subject: string }>({
    status: 503,
    exit: 69,
    when: 'A request over NATS found nobody answering its subject: no manager with this prefix is connected to the broker.',
    message: (p) =>
      `No manager answers '${p.subject}' on the NATS broker. Start the manager with nats.url set (or 'server-manager start --nats <url>'), with the same nats.prefix.`,
  }),
  SM_ERR_NATS_TIMEOUT: spec<{ command: string; seconds: number }>({
    status: 504,
    exit: 75,
    when: 'A request over NATS got no reply in time (the manager was reached but did not answer, or the link dropped).',
    message: (p) =>
      `The manager did not answer '${p.command}' over NATS within ${p.seconds} s. Whether it was done is unknown: check with 'server-manager events', then try again.`,
  }),
  SM_ERR_NATS_REFUSED: spec<{ operation: string; subject: string }>({
    status: 403,
    exit: 77,
    when: "The NATS broker refused a publish or a subscription: this connection's credentials do not allow that subject.",
    message: (p) =>
      `The NATS broker refused to ${p.operation} '${p.subject}': these credentials do not allow it. Use credentials with that permission (docs/architecture.md, "NATS subjects and permissions").`,
  }),
})

declare module '../../kernel/error-catalogue' {
  interface ErrorMap extends ErrorMapOf<typeof bridgeErrors> {}
}
