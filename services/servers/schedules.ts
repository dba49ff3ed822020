import { randomUUID } from 'node:crypto'
import { Cron } from 'croner'
import { type BusScope, type Logger, reasonOf, runInContext, SmError } from '../../kernel'
import type { Projection, Sql } from '../events/contract'
import type { ListedSchedule, Schedule, ScheduleAction } from './contract'
import { scheduleAction } from './contract/schedules'
import { commandProblem } from './control-checks'

export type { Schedule } from './contract'

/**
 * Schedules as a projection of `servers:schedule_added` / `_changed` / `_removed` facts (a removed
 * server takes its schedules). Version 2 folds `servers:schedule_changed`.
 */
export const schedulesProjection: Projection = {
  name: 'schedules',
  version: 2,
  types: ['servers:schedule_added', 'servers:schedule_changed', 'servers:schedule_removed', 'servers:removed'],
  schema: ['CREATE TABLE IF NOT EXISTS schedules (id TEXT PRIMARY KEY, server TEXT NOT NULL, record TEXT NOT NULL)'],
  async apply(sql, events) {
    for (const event of events) {
      if (event.type === 'servers:schedule_added' || event.type === 'servers:schedule_changed') {
        const { schedule } = event.payload as { schedule: Schedule }
        await sql.run('INSERT OR REPLACE INTO schedules (id, server, record) VALUES (?, ?, ?)', [
          schedule.id,
          schedule.server,
          JSON.stringify(schedule),
        ])
      } else if (event.type === 'servers:schedule_removed') {
        await sql.run('DELETE FROM schedules WHERE id = ?', [(event.payload as { id: string }).id])
      } else {
        await sql.run('DELETE FROM schedules WHERE server = ?', [(event.payload as { name: string }).name])
      }
    }
  },
  async reset(sql) {
    await sql.run('DELETE FROM schedules')
  },
  async snapshot(sql) {
    return readSchedules(sql)
  },
  async restore(sql, state) {
    for (const s of state as Schedule[])
      await sql.run('INSERT OR REPLACE INTO schedules (id, server, record) VALUES (?, ?, ?)', [
        s.id,
        s.server,
        JSON.stringify(s),
      ])
  },
}

export async function readSchedules(sql: Sql): Promise<Schedule[]> {
  const rows = await sql.all<{ record: string }>('SELECT record FROM schedules ORDER BY server, id')
  return rows.map((r) => JSON.parse(r.record) as Schedule)
}

/** A new schedule, or the coded reason it cannot be one. */
export function describeSchedule(request: {
  server: string
  cron: string
  action: string
  command?: string
  timezone?: string
  /** An existing schedule's, changed in place (else a new one, added now). */
  id?: string
  addedAt?: string
}): Schedule {
  const { server, cron, action, command, timezone } = request
  const schedule: Schedule = {
    id: request.id ?? randomUUID().slice(0, 8),
    server,
    cron,
    action: action as ScheduleAction,
    command: action === 'command' ? command : undefined,
    timezone,
    addedAt: request.addedAt ?? new Date().toISOString(),
  }
  // Checked whole before anything is stored: what is stored must be able to run.
  const problem = scheduleProblem(schedule)
  if (problem) throw invalid(server, problem)
  if (action !== 'command' && command !== undefined) throw invalid(server, '--command goes only with --action command')
  return schedule
}

/**
 * Why a schedule cannot run, or undefined: its action, its command, its time zone (an IANA name
 * this Node knows) and its cron expression, asked for a next run the way the runner will.
 * The same check guards additions and every stored record, so a bad one is refused or skipped,
 * never thrown at whoever lists or runs the others.
 */
function scheduleProblem(schedule: Schedule): string | undefined {
  const { action, command, cron, timezone } = schedule
  if (!scheduleAction.safeParse(action).success)
    return `'${String(action)}' is not a schedule action (backup, restart or command)`
  if (action === 'command') {
    const problem = commandProblem(command)
    if (problem) return `its --command cannot be sent: ${problem}`
  }
  if (timezone !== undefined) {
    const problem = timeZoneProblem(timezone)
    if (problem) return problem
  }
  if (typeof cron !== 'string') return `'${String(cron)}' is not a cron expression`
  try {
    const job = new Cron(cron, { paused: true, timezone })
    try {
      job.nextRun()
    } finally {
      job.stop()
    }
  } catch (error) {
    // croner's words without its class name ('CronPattern: ') or its closing period.
    const why = reasonOf(error)
      .replace(/^Cron\w*: /, '')
      .replace(/\.+$/, '')
    return `'${cron}' is not a cron expression (${why}); give 'minute hour day-of-month month day-of-week', such as '0 4 * * *' for 04:00 every day, with an optional seconds field first`
  }
  return undefined
}

/** Why `zone` is not a time zone this process can compute in, or undefined. */
function timeZoneProblem(zone: unknown): string | undefined {
  const problem = `'${String(zone)}' is not a time zone; give an IANA time zone such as Europe/Berlin, America/New_York or UTC`
  if (typeof zone !== 'string' || zone.trim() === '') return problem
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone })
  } catch {
    return problem
  }
  return undefined
}

/** A stored schedule with its next run, or the reason it cannot run. */
export function listed(schedule: Schedule): ListedSchedule {
  const problem = scheduleProblem(schedule)
  if (problem) return { ...schedule, nextRun: undefined, invalid: problem }
  return { ...schedule, nextRun: nextRun(schedule) }
}

/** When a valid schedule runs next. */
function nextRun(schedule: Schedule): string | undefined {
  const job = new Cron(schedule.cron, { paused: true, timezone: schedule.timezone })
  const next = job.nextRun()
  job.stop()
  return next?.toISOString()
}

/**
 * The manager's timers: one croner job per schedule, each run a task and a `servers:schedule_ran` fact.
 * A run still going when the next is due is skipped (croner's `protect`), not stacked.
 */
export class Scheduler {
  /** Each timer, with the schedule it was armed with: one changed in place is armed again. */
  readonly #jobs = new Map<string, { readonly job: Cron; readonly schedule: Schedule }>()
  /** Stored schedules that cannot run, warned about once. */
  readonly #skipped = new Set<string>()
  #running = false

  constructor(
    private readonly bus: BusScope,
    private readonly logger: Logger,
    private readonly perform: (schedule: Schedule) => Promise<unknown>,
  ) {}

  /** Whether it runs the schedules: in the manager, from its start to its stop. */
  get running(): boolean {
    return this.#running
  }

  /** Runs `schedules` from now on (and whatever `sync` gives it later), until `stop`. */
  start(schedules: readonly Schedule[]): void {
    this.#running = true
    this.sync(schedules)
  }

  sync(schedules: readonly Schedule[]): void {
    const wanted = new Map(schedules.map((s) => [s.id, s]))
    // One gone, or changed in place (an edit keeps its id): its timer stops; a changed one is armed again below.
    for (const [id, { job, schedule }] of this.#jobs)
      if (JSON.stringify(wanted.get(id)) !== JSON.stringify(schedule)) {
        job.stop()
        this.#jobs.delete(id)
      }
    for (const schedule of schedules) {
      if (this.#jobs.has(schedule.id)) continue
      // One record that cannot run is skipped (and said once), never in the way of the others.
      const problem = scheduleProblem(schedule)
      if (problem) {
        if (!this.#skipped.has(schedule.id))
          this.logger.warn(`Schedule ${schedule.id} of '${schedule.server}' is skipped: ${problem}.`)
        this.#skipped.add(schedule.id)
        continue
      }
      const job = new Cron(schedule.cron, { timezone: schedule.timezone, protect: true }, () => this.#run(schedule))
      this.#jobs.set(schedule.id, { job, schedule })
    }
  }

  /** One run, acting as `schedule:<id>` (not whoever added the schedule: timers inherit the context they were made in). */
  #run(schedule: Schedule): Promise<void> {
    return runInContext({ actor: `schedule:${schedule.id}` }, () => this.#runAs(schedule))
  }

  async #runAs(schedule: Schedule): Promise<void> {
    let result: { status: 'success' | 'error'; message?: string; code?: string }
    try {
      const value = await this.perform(schedule)
      // Done, with something to tell (a backup that stopped the server): said, and kept with the run.
      const warning = (value as { warning?: unknown } | undefined)?.warning
      result = typeof warning === 'string' ? { status: 'success', message: warning } : { status: 'success' }
      if (typeof warning === 'string')
        this.logger.warn(`Schedule ${schedule.id} (${schedule.action} of '${schedule.server}'): ${warning}`)
    } catch (error) {
      result = { status: 'error', message: reasonOf(error), code: (error as SmError).code }
      this.logger.warn(
        `Schedule ${schedule.id} (${schedule.action} of '${schedule.server}') failed: ${reasonOf(error)}`,
      )
    }
    await this.bus.emit('servers:schedule_ran', {
      id: schedule.id,
      server: schedule.server,
      action: schedule.action,
      result,
    })
  }

  stop(): void {
    this.#running = false
    for (const { job } of this.#jobs.values()) job.stop()
    this.#jobs.clear()
  }
}

function invalid(server: string, reason: string): SmError {
  return new SmError('SM_ERR_SCHEDULE_INVALID', { server, reason })
}
