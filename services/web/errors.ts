import { defineErrors, type ErrorMapOf, spec } from '../../kernel/error-catalogue'

/** The web service's error codes (docs/errors.md). */
export const webErrors = defineErrors('web', {
  SM_ERR_WEB_BAD_JSON: spec<{ reason: string }>({
    status: 400,
    exit: 65,
    when: 'A request body that is not valid JSON (or not a JSON object or array).',
    message: (p) =>
      `The request body is not valid JSON (${p.reason}). Send a JSON object with Content-Type: application/json.`,
  }),
  SM_ERR_WEB_BODY_TOO_LARGE: spec<{ limitKb: number }>({
    status: 413,
    exit: 65,
    when: 'A request body over web.max_body_kb.',
    message: (p) => `The request body is larger than ${p.limitKb} KiB (the setting web.max_body_kb).`,
  }),
  SM_ERR_WEB_UPLOAD_TOO_LARGE: spec<{ limitMb: number; fieldKb: number }>({
    status: 413,
    exit: 65,
    when: 'A multipart upload over web.max_upload_mb (all its files and fields together), a field over web.max_body_kb, or more than 20 files or 200 fields.',
    message: (p) =>
      `The upload is too large: a multipart request may carry at most ${p.limitMb} MiB in all, files and fields together (the setting web.max_upload_mb), each field at most ${p.fieldKb} KiB (web.max_body_kb), and at most 20 files and 200 fields.`,
  }),
  SM_ERR_WEB_BAD_MULTIPART: spec<{ reason: string }>({
    status: 400,
    exit: 65,
    when: 'A multipart/form-data body that cannot be read.',
    message: (p) => `The multipart form cannot be read (${p.reason}).`,
  }),
  SM_ERR_WEB_JSON_TOO_DEEP: spec<{ limit: number }>({
    status: 400,
    exit: 65,
    when: 'A JSON request body that nests arrays and objects deeper than the web server reads.',
    message: (p) =>
      `The request body nests arrays and objects more than ${p.limit} levels deep. Send a flatter JSON document.`,
  }),
  SM_ERR_WEB_HOST_REFUSED: spec<{ host: string }>({
    status: 421,
    exit: 77,
    when: 'A request whose Host (X-Forwarded-Host with web.trust_proxy) is not a name of this manager: loopback, web.host, the address it listens on, or web.allowed_hosts. It keeps pages of other sites from reaching the manager through a domain of theirs (DNS rebinding).',
    message: (p) =>
      `This manager does not answer to the host name '${p.host}', so that a page of another site cannot reach it through a domain name of its own. If '${p.host}' is this manager's name (a DNS name, a reverse proxy), add it to the list in the setting web.allowed_hosts (as the only one: server-manager setting set web.allowed_hosts '["${p.host}"]').`,
  }),
  SM_ERR_WEB_ORIGIN_REFUSED: spec<{ origin: string; own: string }>({
    status: 403,
    exit: 77,
    when: "A write (POST, PUT, PATCH, DELETE) sent by a browser page of another origin (its Origin header is not the request's own scheme, host and port).",
    message: (p) =>
      `A write from a page of ${p.origin} was refused: it is not this manager's own address (${p.own}). Use the manager's own pages. Behind a reverse proxy that serves it under another scheme or name, set web.trust_proxy to true and list the name in web.allowed_hosts, so the manager knows the address browsers use.`,
  }),
  SM_ERR_WEB_UNAVAILABLE: spec<{ state: 'starting' | 'stopping' }>({
    status: 503,
    exit: 75,
    when: 'A request while the manager is starting (before every service and plugin is up) or stopping; the answer carries Retry-After.',
    message: (p) =>
      p.state === 'starting'
        ? 'The manager is starting: it answers once every service and plugin is up. Retry in a moment (Retry-After).'
        : "The manager is stopping. Retry once it runs again ('server-manager start').",
  }),
  SM_ERR_WEB_VALIDATION: spec<{ summary: string; issues: readonly { where: string; path: string; message: string }[] }>(
    {
      status: 422,
      exit: 64,
      when: "A request whose path parameters, query or body do not match the route's schema (the issues are listed).",
      message: (p) => `The request is not valid: ${p.summary}. The OpenAPI document at /api/openapi.json describes it.`,
    },
  ),
  SM_ERR_WEB_NOT_FOUND: spec<{ method: string; path: string }>({
    status: 404,
    exit: 66,
    when: 'No route answers this method and path.',
    message: (p) => `Nothing answers ${p.method} ${p.path}. The API is described at /api/openapi.json and /docs.`,
  }),
  SM_ERR_WEB_REQUEST_REFUSED: spec<{ status: number; reason: string }>({
    status: 400,
    exit: 65,
    when: 'A route or the static file server refused the request with a 4xx of its own (ctx.throw in a plugin route, a static path that leaves its folder, a malformed URL), or the request is not readable HTTP (400, 408, 431); the answer keeps that status.',
    message: (p) => `The request was refused (${p.status}): ${p.reason}.`,
  }),
  SM_ERR_WEB_CONFLICT: spec<{ plugin: string; other: string; what: string }>({
    status: 409,
    exit: 65,
    when: 'A plugin contributed a router prefix, route, static mount path or mount name that the core or another plugin already has.',
    message: (p) =>
      `The plugin '${p.plugin}' cannot have ${p.what}: ${p.other === 'core' ? 'the core has it' : `the plugin '${p.other}' has it`}. Rename it in '${p.plugin}' (the first one keeps working).`,
  }),
  SM_ERR_WEB_BAD_CONTRIBUTION: spec<{ plugin: string; what: string; reason: string }>({
    status: 422,
    exit: 65,
    when: "A plugin's getRouters, getTemplatePaths or getStaticMounts returned something unusable.",
    message: (p) => `The plugin '${p.plugin}' returned an unusable ${p.what}: ${p.reason}.`,
  }),
  SM_ERR_WEB_LISTEN_FAILED: spec<{ host: string; port: number; reason: string }>({
    status: 500,
    exit: 69,
    when: 'The web server could not listen on web.host:web.port (the port is taken, or the address is not this machine).',
    message: (p) =>
      `The web server cannot listen on ${p.host}:${p.port} (${p.reason}). Free the port, or choose another: 'server-manager setting set web.port <port>'.`,
  }),
  SM_ERR_WEB_COMMAND_BLOCKED: spec<{ command: string }>({
    status: 403,
    exit: 77,
    when: 'A non-admin sent a console command that only admins may send over the API (stop, restart, reload, rl, paper, end, shutdown, greload, save…, allowlist, whitelist, op, deop, permission, changesetting, lp, lpb, lpv, luckperms, pex, perm, perms, permissions, sudo, esudo), however spelled: a slash, a namespace, any case, inside execute … run.',
    message: (p) =>
      `Only admins may send '${p.command}' to a server (also with a slash, a namespace such as minecraft:, or inside execute … run): it stops, reloads or saves the game, or changes who may join, who is an operator or what anyone may do. Use the power and backup actions instead; an admin manages the allowlist and operators.`,
  }),
  SM_ERR_WEB_SETTING_ABOVE_ROLE: spec<{ server: string; key: string; value: number; limit: number }>({
    status: 403,
    exit: 77,
    when: "A non-admin set a server's retention.backups above the global retention.backups (an admin's policy for the disk).",
    message: (p) =>
      `Only admins may keep more backups of '${p.server}' than the global retention.backups (${p.limit}): '${p.key}' ${p.value} was refused and nothing was changed. Set ${p.limit} or fewer, or ask an admin.`,
  }),
  SM_ERR_WEB_TEMPLATE_NOT_FOUND: spec<{ view: string; plugin: string }>({
    status: 500,
    exit: 70,
    when: 'A route rendered a template that is in none of its template folders.',
    message: (p) =>
      `The template '${p.view}' of '${p.plugin}' was not found in its template folders (getTemplatePaths).`,
  }),
  SM_ERR_WEB_STATIC_MOUNT_UNKNOWN: spec<{ name: string }>({
    status: 500,
    exit: 70,
    when: 'urlFor was called with a static mount name nobody registered.',
    message: (p) =>
      `No static mount is named '${p.name}'. Names come from getStaticMounts() ([urlPath, directory, name]).`,
  }),
})

declare module '../../kernel/error-catalogue' {
  interface ErrorMap extends ErrorMapOf<typeof webErrors> {}
}
