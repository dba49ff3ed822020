import type { Kernel, Service } from '../../manager'
import { startManager } from './manager'
import { useTrace, writePlugins } from './plugins'
import { tempDir } from './temp-dir'

export interface Reply {
  readonly status: number
  readonly headers: Headers
  readonly text: string
  // biome-ignore lint/suspicious/noExplicitAny: test replies are inspected freely
  readonly json: any
}

/** One HTTP request to the manager's web server, as an outside client makes it. */
export async function http(
  url: string,
  options: {
    method?: string
    token?: string
    body?: unknown
    raw?: string
    headers?: Record<string, string>
  } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { Accept: 'application/json', ...options.headers }
  if (options.token) headers.Authorization = `Bearer ${options.token}`
  let body: string | undefined = options.raw
  if (options.body !== undefined) {
    body = JSON.stringify(options.body)
    headers['Content-Type'] ??= 'application/json'
  } else if (body !== undefined) headers['Content-Type'] ??= 'application/json'
  const res = await fetch(url, {
    method: options.method ?? (body === undefined ? 'GET' : 'POST'),
    headers,
    body,
    redirect: 'manual',
  })
  const text = await res.text()
  return { status: res.status, headers: res.headers, text, json: parseJson(text) }
}

/** The JSON in `text`, or undefined when it is not JSON. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

export interface WebSetup {
  readonly dataDir: string
  readonly manager: Kernel
  /** `http://127.0.0.1:<port>`. */
  readonly url: string
  /** A session token of the first admin (`admin`). */
  readonly admin: string
  /** A session token for a new user with `role`. */
  login(username: string, role: 'user' | 'moderator' | 'admin'): Promise<string>
}

export const ADMIN_PASSWORD = 'correct horse battery'

/** Signs in over HTTP and returns the session token. */
export async function signIn(url: string, username: string, password: string): Promise<string> {
  const reply = await http(`${url}/auth/token`, { body: { username, password } })
  if (reply.status !== 200) throw new Error(`sign-in of ${username} failed: ${reply.status} ${reply.text}`)
  return reply.json.access_token as string
}

/**
 * A manager with its web server on a free loopback port, the first admin set up (`admin`), user
 * plugins written from `files`, `settings` applied and `enable` enabled.
 */
export async function startWeb(
  options: {
    files?: Record<string, string>
    settings?: Record<string, unknown>
    enable?: string[]
    setup?: boolean
    /** Extra services to run in the manager (a test's own declarations). */
    services?: Service[]
  } = {},
): Promise<WebSetup> {
  const dataDir = tempDir()
  writePlugins(dataDir, options.files ?? {})
  useTrace(dataDir)
  const manager = await startManager({ dataDir, web: true, services: options.services })
  for (const [key, value] of Object.entries(options.settings ?? {}))
    await manager.bus.request('settings:set', { key, value })
  if (options.settings) await manager.bus.request('plugins:reload', {})
  for (const name of options.enable ?? []) await manager.bus.request('plugins:set_enabled', { name, enabled: true })
  const url = (await manager.bus.request('web:status', {})).url as string
  let admin = ''
  if (options.setup !== false) {
    await manager.bus.request('auth:create_user', { username: 'admin', password: ADMIN_PASSWORD, firstAdmin: true })
    admin = await signIn(url, 'admin', ADMIN_PASSWORD)
  }
  return {
    dataDir,
    manager,
    url,
    admin,
    async login(username, role) {
      const password = `${username} password`
      await manager.bus.request('auth:create_user', { username, password, role })
      return signIn(url, username, password)
    },
  }
}
