import { defineErrors, type ErrorMapOf, spec } from './error-catalogue'

/** The kernel's own error codes (docs/errors.md). */
export const kernelErrors = defineErrors('kernel', {
  SM_ERR_INTERNAL: spec<{ reason: string }>({
    status: 500,
    exit: 70,
    when: 'An unexpected failure inside server-manager (a bug).',
    message: (p) =>
      `Unexpected internal error: ${p.reason}. This is a bug: please report it with the log file from <data dir>/logs.`,
  }),
  SM_ERR_KERNEL_NO_HANDLER: spec<{ command: string }>({
    status: 500,
    exit: 70,
    when: 'A command was requested that no started service handles.',
    message: (p) =>
      `No service handles the command '${p.command}'. Register and start the service that provides it before calling it.`,
  }),
  SM_ERR_KERNEL_DUPLICATE_HANDLER: spec<{ command: string; owner: string; existing: string }>({
    status: 500,
    exit: 70,
    when: 'Two services tried to handle the same command.',
    message: (p) =>
      `'${p.owner}' tried to handle the command '${p.command}', which '${p.existing}' already handles. A command has exactly one handler: rename one of them.`,
  }),
  SM_ERR_KERNEL_LISTENER_FAILED: spec<{ owner: string; event: string; reason: string }>({
    status: 500,
    exit: 70,
    when: 'A listener (a service or a plugin hook) threw or rejected while handling an event.',
    message: (p) =>
      `'${p.owner}' failed while handling '${p.event}': ${p.reason}. Other listeners and the action carried on; fix the listener.`,
  }),
  SM_ERR_KERNEL_LISTENER_TIMEOUT: spec<{ owner: string; event: string; ms: number }>({
    status: 504,
    exit: 75,
    when: 'A listener did not settle within its timeout.',
    message: (p) =>
      `'${p.owner}' did not finish handling '${p.event}' within ${p.ms} ms and was abandoned. Move long work into a task, or raise the timeout.`,
  }),
  SM_ERR_KERNEL_REQUEST_TIMEOUT: spec<{ command: string; ms: number }>({
    status: 504,
    exit: 75,
    when: 'A command handler did not reply within the time the caller allowed.',
    message: (p) =>
      `The command '${p.command}' did not reply within ${p.ms} ms. Try again; if it persists, check the log.`,
  }),
  SM_ERR_KERNEL_NOT_RUNNING: spec<{ state: string }>({
    status: 503,
    exit: 69,
    when: 'The kernel was used before start() or after stop().',
    message: (p) => `The kernel is ${p.state}. Call start() before using it, and do not use it after stop().`,
  }),
  SM_ERR_KERNEL_DUPLICATE_SERVICE: spec<{ service: string }>({
    status: 500,
    exit: 70,
    when: 'Two services with one name were registered.',
    message: (p) => `A service named '${p.service}' is already registered. Service names must be unique.`,
  }),
  SM_ERR_KERNEL_SERVICE_MISSING: spec<{ service: string; dependency: string }>({
    status: 500,
    exit: 70,
    when: 'A service depends on a service that is not registered.',
    message: (p) =>
      `The service '${p.service}' depends on '${p.dependency}', which is not registered. Register '${p.dependency}' too.`,
  }),
  SM_ERR_KERNEL_SERVICE_CYCLE: spec<{ cycle: string }>({
    status: 500,
    exit: 70,
    when: 'Service dependencies form a cycle.',
    message: (p) => `The services depend on each other in a cycle (${p.cycle}). Break the cycle.`,
  }),
  SM_ERR_KERNEL_SERVICE_FAILED: spec<{ service: string; phase: string; reason: string }>({
    status: 500,
    exit: 70,
    when: 'A service failed to start or stop, or took longer than its timeout.',
    message: (p) => `The service '${p.service}' failed to ${p.phase}: ${p.reason}. The log has the details.`,
  }),
  SM_ERR_KERNEL_SCOPE_DISPOSED: spec<{ owner: string }>({
    status: 500,
    exit: 70,
    when: 'Something registered a listener or handler on a bus scope that was already released.',
    message: (p) =>
      `'${p.owner}' tried to register on the bus after it was stopped or unloaded. Nothing was registered; do not keep using a scope after its owner stopped.`,
  }),
  SM_ERR_BUS_UNDECLARED: spec<{ kind: string; name: string }>({
    status: 404,
    exit: 64,
    when: 'A caller outside the process (the bridge, the HTTP API, a plugin) named a command or event that no contract declares.',
    message: (p) =>
      `No service declares the ${p.kind} '${p.name}'. Check its spelling; docs/architecture.md lists each service's commands and events.`,
  }),
  SM_ERR_BUS_BAD_PAYLOAD: spec<{ kind: string; name: string; issues: string }>({
    status: 400,
    exit: 65,
    when: "A command's or event's payload does not fit the schema its contract declares.",
    message: (p) =>
      `The ${p.kind} '${p.name}' was sent a payload that does not fit: ${p.issues}. Send the fields it declares.`,
  }),
  SM_ERR_BUS_NOT_OWNER: spec<{ event: string; owner: string; sender: string }>({
    status: 403,
    exit: 77,
    when: 'Something emitted an event (or a hook) that belongs to another namespace.',
    message: (p) =>
      `The event '${p.event}' belongs to ${p.owner}, so ${p.sender} may not emit it. Emit events in your own namespace; ask ${p.owner} through its commands to do what it announces.`,
  }),
  SM_ERR_KERNEL_NOT_REGISTERED: spec<{ token: string }>({
    status: 500,
    exit: 70,
    when: 'Something was resolved from the registry that nobody provided.',
    message: (p) => `Nothing is registered for '${p.token}'. Provide it before resolving it.`,
  }),
  SM_ERR_DATA_DIR_UNUSABLE: spec<{ path: string; reason: string }>({
    status: 500,
    exit: 73,
    when: 'The data directory cannot be created, read or written.',
    message: (p) =>
      `The data directory '${p.path}' cannot be used (${p.reason}). Point SM_DATA_DIR at a directory this user can read and write, or fix its permissions.`,
  }),
  SM_ERR_DATA_DIR_EXPOSED: spec<{ path: string; mode: string }>({
    status: 500,
    exit: 77,
    when: 'The data directory is open to other users (group or others may read, write or enter it) and belongs to another user.',
    message: (p) =>
      `The data directory '${p.path}' (mode ${p.mode}) is open to other users and belongs to another user, so it cannot be made private here: it holds password hashes and the signing key. Its owner (or root) should run: chmod 700 '${p.path}', then try again.`,
  }),
  SM_ERR_DISK_FULL: spec<{ reason: string }>({
    status: 507,
    exit: 74,
    when: "A file could not be written because its disk (or the user's quota) is full.",
    message: (p) =>
      `The disk is full (${p.reason}). Free space on it (or raise the quota) and try again; nothing else needs restarting.`,
  }),
  SM_ERR_OUTPUT_LOST: spec<{ reason: string }>({
    status: 500,
    exit: 74,
    when: "A command's output could not be written (a full disk under a redirect, a closed pipe or terminal).",
    message: (p) =>
      `The command's output could not be written (${p.reason}), so it is incomplete. Free space where it goes, or keep its reader open, and run it again.`,
  }),
})

declare module './error-catalogue' {
  interface ErrorMap extends ErrorMapOf<typeof kernelErrors> {}
}
