import { SmError } from '../../kernel'
import type { EventQuery } from './contract'

const DURATION = /^(\d+(?:\.\d+)?)\s*(s|m|h|d|w)$/
const UNIT_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }

/** Epoch ms from an ISO date, epoch ms, or a duration back from `now` (`15m`, `2h`, `7d`). */
export function parseTime(value: string | number, name: string, now = Date.now()): number {
  if (typeof value === 'number' && Number.isFinite(value)) return value
  const text = String(value).trim()
  const duration = DURATION.exec(text)
  if (duration) return now - Number(duration[1]) * (UNIT_MS[duration[2] as string] as number)
  const parsed = Date.parse(text)
  if (text === '' || Number.isNaN(parsed)) {
    throw new SmError('SM_ERR_EVENTS_INVALID_QUERY', {
      reason: `${name} '${text}' is neither an ISO date (2026-01-31T12:00:00Z) nor a duration such as 15m, 2h or 7d`,
    })
  }
  return parsed
}

/** Turns a query into one indexed SELECT. */
export function queryToSql(query: EventQuery): { text: string; params: unknown[]; reverse: boolean } {
  const where: string[] = []
  const params: unknown[] = []
  if (query.afterSeq !== undefined) {
    if (!Number.isInteger(query.afterSeq) || query.afterSeq < 0) invalid('afterSeq must be a whole number ≥ 0')
    where.push('seq > ?')
    params.push(query.afterSeq)
  }
  if (query.beforeSeq !== undefined) {
    if (!Number.isInteger(query.beforeSeq) || query.beforeSeq < 1) invalid('beforeSeq must be a whole number ≥ 1')
    where.push('seq < ?')
    params.push(query.beforeSeq)
  }
  if (query.actor) {
    where.push("actor LIKE ? ESCAPE '\\'")
    params.push(`%${escapeLike(query.actor)}%`)
  }
  if (query.server) {
    // Where facts name their server: `serverName` (actions), `server` (schedules, grants), an added
    // server's record, a schedule's, or a server fact's `name`.
    const paths = ['$.serverName', '$.server', '$.server.name', '$.schedule.server']
    where.push(
      `(${paths.map((path) => `json_extract(payload, '${path}') = ?`).join(' OR ')} OR (type LIKE 'servers:%' AND json_extract(payload, '$.name') = ?))`,
    )
    params.push(...paths.map(() => query.server), query.server)
  }
  // 'a,b' is both (no event type holds a comma): what the web filter and `--type 'a,b'` send.
  const types = query.types?.flatMap((type) =>
    typeof type === 'string' && type.includes(',')
      ? type
          .split(',')
          .map((t) => t.trim())
          .filter(Boolean)
      : [type],
  )
  if (types?.length) {
    const clauses = types.map((type) => {
      if (typeof type !== 'string' || type === '' || type === '*') invalid(`'${type}' is not an event type`)
      if (!type.endsWith('*')) {
        params.push(type)
        return 'type = ?'
      }
      params.push(`${escapeLike(type.slice(0, -1))}%`)
      return "type LIKE ? ESCAPE '\\'"
    })
    where.push(`(${clauses.join(' OR ')})`)
  }
  if (query.since !== undefined) {
    where.push('time >= ?')
    params.push(parseTime(query.since, 'since'))
  }
  if (query.until !== undefined) {
    where.push('time < ?')
    params.push(parseTime(query.until, 'until'))
  }
  const limit = query.limit ?? 100
  if (!Number.isInteger(limit) || limit < 1 || limit > 10_000) invalid('limit must be a whole number from 1 to 10000')
  params.push(limit)
  const clause = where.length ? `WHERE ${where.join(' AND ')}` : ''
  const order = query.tail ? 'DESC' : 'ASC'
  return { text: `SELECT * FROM events ${clause} ORDER BY seq ${order} LIMIT ?`, params, reverse: Boolean(query.tail) }
}

/** `text` matched as it is in a LIKE pattern (its %, _ and \\ taken literally). */
function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, '\\$&')
}

function invalid(reason: string): never {
  throw new SmError('SM_ERR_EVENTS_INVALID_QUERY', { reason })
}
