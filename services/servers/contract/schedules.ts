/** A server's schedules: recurring jobs the manager runs. */
import { z } from 'zod'
import { command } from '../../../kernel'
import { named, serverDoor } from './records'

export const scheduleAction = z.enum(['backup', 'restart', 'command'])
export type ScheduleAction = z.output<typeof scheduleAction>

/** A recurring job on one server, run by the manager (`server schedule add`). */
export const scheduleFields = z.object({
  id: z.string(),
  server: z.string(),
  /** A cron expression (5 fields, or 6 with seconds first), in the manager's time zone unless `timezone`. */
  cron: z.string(),
  action: scheduleAction,
  /** The console command, for `command`. */
  command: z.string().optional(),
  timezone: z.string().optional(),
  addedAt: z.string(),
})
export const schedule = scheduleFields.readonly()
export type Schedule = z.output<typeof schedule>

/** A schedule as `schedule list` shows it: when it runs next, or why it cannot run. */
export const listedSchedule = scheduleFields
  .extend({
    nextRun: z.string().optional(),
    /** Why this stored schedule cannot run (recorded before its check existed, or its zone is gone); it is skipped. */
    invalid: z.string().optional(),
  })
  .readonly()
export type ListedSchedule = z.output<typeof listedSchedule>

/** What a request says of a schedule: an add gives it all, an edit what it changes (the service checks it whole). */
const scheduleRequest = z.object({
  cron: z.string(),
  action: z.string(),
  command: z.string().optional(),
  timezone: z.string().optional(),
})

/** The same over HTTP, bounded. */
const scheduleInput = z.object({
  cron: z.string().min(1).max(200),
  action: z.string().min(1).max(40),
  command: z.string().max(1000).optional(),
  timezone: z.string().max(100).optional(),
})

/** The commands of this area, declared with the others in services/servers/contract.ts. */
export const schedulesCommands = {
  /** Adds a schedule (run by the manager while it runs). */
  'servers:schedule_add': command(named.extend(scheduleRequest.shape), listedSchedule, {
    http: serverDoor({
      method: 'post',
      path: '/servers/:name/schedules',
      right: 'schedules',
      name: 'add_schedule',
      summary: 'Add a schedule (cron: backup, restart or command)',
      access: 'admin',
      input: scheduleInput,
      status: 201,
      key: 'schedule',
      response: 'ScheduleAdded',
    }),
  }),
  /**
   * The schedules (of one server, or all), each with its next run, or, for a stored one that
   * cannot run, `invalid`: why (it is skipped).
   */
  'servers:schedule_list': command(z.object({ name: z.string().optional() }), z.array(listedSchedule), {
    host: { reads: true },
    http: serverDoor({
      method: 'get',
      path: '/servers/:name/schedules',
      right: 'schedules',
      name: 'list_schedules',
      summary: "A server's schedules",
      access: 'moderator',
      key: 'schedules',
      response: 'ScheduleList',
    }),
  }),
  /**
   * Changes a schedule of the server in place (its id kept): the fields given replace its own,
   * checked whole as an added one is (an action other than `command` drops its command).
   */
  'servers:schedule_edit': command(
    named.extend({ id: z.string(), ...scheduleRequest.partial().shape }),
    listedSchedule,
    {
      http: serverDoor({
        method: 'put',
        path: '/servers/:name/schedules/:id',
        right: 'schedules',
        name: 'edit_schedule',
        summary: "Change one of a server's schedules (its id kept): cron, action, command, time zone",
        access: 'admin',
        input: scheduleInput.partial(),
        key: 'schedule',
        response: 'ScheduleChanged',
        errors: { 404: 'That server has no schedule with that id.', 422: 'The changed schedule could not run.' },
      }),
    },
  ),
  /** Removes a schedule; `name`: only if it is that server's. */
  'servers:schedule_remove': command(z.object({ id: z.string(), name: z.string().optional() }), schedule, {
    http: [
      {
        method: 'delete',
        path: '/schedules/:id',
        name: 'remove_schedule',
        summary: 'Remove a schedule',
        tags: ['Servers'],
        access: 'admin',
        key: 'schedule',
        response: 'ScheduleRemoved',
        errors: { 404: 'No schedule with that id.' },
      },
      serverDoor({
        method: 'delete',
        path: '/servers/:name/schedules/:id',
        right: 'schedules',
        name: 'remove_server_schedule',
        summary: "Remove one of a server's schedules",
        access: 'admin',
        key: 'schedule',
        response: 'ScheduleRemoved',
        errors: { 404: 'That server has no schedule with that id.' },
      }),
    ],
  }),
}
