/**
 * Where the bus meets NATS subjects. A bus name `ns:name` becomes the tokens `ns.name` under the
 * installation's prefix (setting nats.prefix, default `sm`), so a subject says which namespace,
 * and so which service or plugin, owns it, and NATS permissions can grant a namespace at once:
 *
 * - `<prefix>.req.<ns>.<name>`: a request to the command's handler in the manager (queue group
 *   `manager`); the reply goes to the requester's inbox.
 * - `<prefix>.evt.<ns>.<name>`: every event the manager's bus emits, as it is emitted; the hooks'
 *   names, which have no namespace (`after_setting_update`), under `_`.
 * - `<prefix>.agent.<host>.>`: a host agent's own subjects (issue 22), which only it and the
 *   manager may use.
 */
export type SubjectKind = 'req' | 'evt'

/** The namespace token of names that have none (the hooks). */
const BARE = '_'

/** A subject token we emit: NATS forbids `.`, `*`, `>` and whitespace; we also keep to one portable set. */
const TOKEN = /^[A-Za-z0-9_-]{1,64}$/

export function isSubjectToken(value: string): boolean {
  return TOKEN.test(value)
}

/** The subject of a bus name, or undefined when the name cannot be one (a token NATS would misread). */
export function subjectOf(prefix: string, kind: SubjectKind, name: string): string | undefined {
  const tokens = name.split(':')
  if (tokens.length === 1 && kind === 'evt') tokens.unshift(BARE)
  if (tokens.length < 2 || !tokens.every(isSubjectToken)) return undefined
  return `${prefix}.${kind}.${tokens.join('.')}`
}

/** The bus name a subject stands for, or undefined when it is not one of `kind` under `prefix`. */
export function nameOfSubject(prefix: string, kind: SubjectKind, subject: string): string | undefined {
  const head = `${prefix}.${kind}.`
  if (!subject.startsWith(head)) return undefined
  const tokens = subject.slice(head.length).split('.')
  if (tokens.length < 2 || !tokens.every(isSubjectToken)) return undefined
  return tokens[0] === BARE && kind === 'evt' && tokens.length === 2 ? tokens[1] : tokens.join(':')
}

/** Every subject of `kind` (a NATS wildcard). */
export function allSubjects(prefix: string, kind: SubjectKind): string {
  return `${prefix}.${kind}.>`
}

/** Why a broker URL list cannot be used, or undefined. */
export function natsUrlProblem(value: string): string | undefined {
  if (value === '') return undefined
  for (const part of value.split(',').map((s) => s.trim())) {
    let url: URL
    try {
      url = new URL(part.includes('://') ? part : `nats://${part}`)
    } catch {
      return `'${part}' is not a URL such as nats://panel.example.com:4222`
    }
    if (!['nats:', 'tls:'].includes(url.protocol)) return `'${part}' must start with nats:// or tls://`
    if (url.username || url.password)
      return 'credentials do not belong in the URL (it is shown in status and logs): set nats.user and nats.password, or nats.creds_file'
    if (url.pathname !== '' && url.pathname !== '/') return `'${part}' must not have a path`
  }
  return undefined
}
