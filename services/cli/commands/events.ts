import * as Flags from '@oclif/core/flags'
import type { EventQuery, StoredEvent } from '../../events/contract'
import { formatEvent } from '../format'
import { ManagerCommand } from '../manager-command'
import { waitForSignal } from '../wait-for-signal'

/** How often `--follow` reads while no manager runs, so supervisors' status changes show up. */
const JOURNAL_POLL_MS = 1_000

export default class Events extends ManagerCommand {
  protected override loadsPlugins = false
  // The servers service takes in what its servers' supervisors journaled before a read (events:reading).
  protected override services = ['events', 'servers'] as const
  static override summary = 'Read the event log'
  static override description =
    'Prints the newest events in the order they were recorded (by sequence number). A status change or crash a server\'s supervisor saw while no manager ran is recorded when the log is read next, with the time it happened: the line then says "(happened <time>)" before its payload. With --follow, keeps printing new events from any process until interrupted.'
  static override examples = [
    '<%= config.bin %> events',
    '<%= config.bin %> events --type after_setting_update --since 2h',
    "<%= config.bin %> events --type 'after_*' --follow --json",
    '<%= config.bin %> events --server survival --actor alice',
  ]
  static override flags = {
    type: Flags.string({
      description: "event type; a trailing * matches a prefix ('after_*'); repeatable, or comma-separated",
      multiple: true,
    }),
    since: Flags.string({
      description: 'only events at or after: an ISO date or a duration back from now (15m, 2h, 7d)',
    }),
    until: Flags.string({ description: 'only events before: an ISO date or a duration back from now' }),
    server: Flags.string({ description: 'only events about this server' }),
    actor: Flags.string({ description: 'only events whose actor contains this (alice, http:, plugin:backup)' }),
    after: Flags.integer({ description: 'only events with a sequence number greater than this', min: 0 }),
    limit: Flags.integer({ description: 'at most this many events', default: 50, min: 1, max: 10_000 }),
    follow: Flags.boolean({ char: 'f', description: 'keep printing new events until interrupted' }),
    json: Flags.boolean({ description: 'print JSON (one object per line with --follow)' }),
  }

  async run(): Promise<void> {
    const { flags } = await this.parse(Events)
    // Listen for Ctrl-C from the start, so an early one still ends the command cleanly.
    const stop = flags.follow ? waitForSignal() : undefined
    const filter: EventQuery = {
      types: flags.type,
      since: flags.since,
      until: flags.until,
      server: flags.server,
      actor: flags.actor,
    }
    const head = (await this.request('events:head', {})).seq
    const tail = flags.after === undefined
    const backlog = await this.request('events:read', { ...filter, afterSeq: flags.after, limit: flags.limit, tail })
    if (flags.json && !flags.follow) return this.printJson(backlog)
    this.#print(backlog, Boolean(flags.json))
    if (!stop) return
    // A tail holds the newest matches, so following goes on from the head seen before reading
    // it; a page read from --after goes on from its last event.
    const last = backlog.at(-1)?.seq
    const cursor = tail ? Math.max(head, last ?? 0) : (last ?? flags.after ?? 0)
    await this.#follow(filter, cursor, Boolean(flags.json), stop)
  }

  /** Re-reads with the same filter whenever the log grows, until SIGINT or SIGTERM. */
  async #follow(filter: EventQuery, afterSeq: number, json: boolean, stop: Promise<unknown>): Promise<void> {
    let cursor = afterSeq
    let pending = Promise.resolve()
    const drain = async () => {
      for (;;) {
        const events = await this.request('events:read', {
          ...filter,
          until: undefined,
          afterSeq: cursor,
          limit: 1_000,
        })
        this.#print(events, json)
        cursor = events.at(-1)?.seq ?? cursor
        if (events.length < 1_000) return
      }
    }
    const onAppended = () => {
      pending = pending.then(drain)
    }
    await this.subscribe('events:appended', onAppended)
    await this.request('events:watch', { afterSeq: cursor })
    // With no manager, nobody follows the supervisors: each read records what their journals
    // hold (events:reading), so read now and then even when the log itself is quiet.
    const poll = (await this.target()).kind === 'local' ? setInterval(onAppended, JOURNAL_POLL_MS) : undefined
    try {
      await stop
    } finally {
      clearInterval(poll)
    }
    await pending
  }

  #print(events: readonly StoredEvent[], json: boolean): void {
    for (const event of events) this.log(json ? JSON.stringify(event) : formatEvent(event))
  }
}
