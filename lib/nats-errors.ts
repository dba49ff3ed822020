import { defineErrors, type ErrorMapOf, spec } from '../kernel/error-catalogue'

/** The NATS transport's error codes (docs/errors.md), shared by the manager, its clients and the host agents. */
export const natsErrors = defineErrors('nats', {
  SM_ERR_NATS_CONFIG: spec<{ setting: string; reason: string }>({
    status: 400,
    exit: 78,
    when: 'A NATS setting (or --nats) cannot be used: a URL that is not nats:// or tls://, a credentials file that is missing or not a NATS credentials or seed file.',
    message: (p) =>
      `The NATS setting ${p.setting} cannot be used: ${p.reason}. Fix it with 'server-manager setting set ${p.setting} <value>' (docs/settings.md), or the matching option of 'agent start'.`,
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
      `The NATS broker refused to ${p.operation === 'subscription' ? 'subscribe to' : p.operation === 'publish' ? 'publish to' : p.operation} '${p.subject}': these credentials do not allow it. Use credentials with that permission (docs/architecture.md, "The bus over NATS, and host agents on other machines").`,
  }),
  SM_ERR_NATS_REPLY_TOO_LARGE: spec<{ command: string; bytes: number; reason: string }>({
    status: 413,
    exit: 65,
    when: "A reply over NATS was larger than the broker's max_payload (1 MiB by default).",
    message: (p) =>
      `The reply to '${p.command}' (${p.bytes} bytes) is too large for the NATS broker (${p.reason}). Ask for less (a smaller limit), or raise max_payload in nats-server's configuration.`,
  }),
  SM_ERR_HOST_UNREACHABLE: spec<{ host: string; reason: string }>({
    status: 503,
    exit: 69,
    when: 'A command for a server on another host found that host offline or not answering on the NATS broker.',
    message: (p) =>
      `Host '${p.host}' cannot be reached: ${p.reason}. Check its agent ('server-manager hosts'; on that machine, 'server-manager agent start --nats …'), then try again.`,
  }),
  SM_ERR_HOST_UNKNOWN: spec<{ host: string; known: string }>({
    status: 404,
    exit: 66,
    when: 'A server was to be added on a host that has never joined the broker.',
    message: (p) =>
      `No host '${p.host}' has joined this manager (${p.known}). Start its agent first: on that machine, 'server-manager agent start --nats <url> --name ${p.host}'.`,
    web: (p) =>
      `No host '${p.host}' has joined this manager (${p.known}). Start its agent on that machine first; the Hosts page shows the hosts that have joined.`,
  }),
})

declare module '../kernel/error-catalogue' {
  interface ErrorMap extends ErrorMapOf<typeof natsErrors> {}
}
