'use strict'
;(() => {
  const { api, fail, el, stream, when } = window.sm
  const list = document.getElementById('events')
  const form = document.getElementById('events-filter')
  const older = document.getElementById('older')
  const PAGE = 100
  let source
  let oldest
  /** The query the list shows: Older pages on with it, whatever the form says now. */
  let shown

  /** Who did it, as people say it. */
  const who = (actor) => {
    const [kind, name] = String(actor).split(/:(.*)/)
    if (kind === 'http') return name
    if (kind === 'cli') return `${name} (command line)`
    if (kind === 'plugin') return `the plugin ${name}`
    if (kind === 'server') return `the game ${name}`
    if (kind === 'host') return `the host ${name}`
    if (actor === 'schedule') return 'a schedule'
    return 'the manager'
  }
  /** The server a fact is about, where it names one. */
  const serverOf = ({ type, payload: p = {} }) =>
    p.serverName ??
    (typeof p.server === 'string' ? p.server : p.server?.name) ??
    p.schedule?.server ??
    (type.startsWith('servers:') ? p.name : undefined)
  const list_ = (items) => (items?.length ? items.join(', ') : 'nothing')
  /** A value in a sentence: short (the raw JSON has it whole). */
  const short = (value) => {
    const text = JSON.stringify(value) ?? String(value)
    return text.length > 60 ? `${text.slice(0, 57)}…` : text
  }

  /** One readable sentence per fact: what happened (its actor and server are said beside it). */
  const SAY = {
    'servers:added': (p) => `added the server ${p.server?.name}`,
    'servers:removed': (p) => `removed the server ${p.name}${p.filesDeleted ? ' and deleted its files' : ''}`,
    'servers:edited': (p) => `changed how ${p.name} runs`,
    'servers:setting_changed': (p) => `set ${p.key} of ${p.name}`,
    'servers:eula_accepted': (p) => `accepted the EULA of ${p.name}`,
    'servers:backup_deleted': (p) => `deleted the backup ${p.file}`,
    'servers:schedule_added': (p) => `added a schedule: ${p.schedule?.action} at ${p.schedule?.cron}`,
    'servers:schedule_changed': (p) => `changed a schedule to ${p.schedule?.action} at ${p.schedule?.cron}`,
    'servers:schedule_removed': () => 'removed a schedule',
    'servers:schedule_ran': (p) => `ran the schedule ${p.action ?? ''}`.trim(),
    after_server_start: () => 'started it',
    after_server_stop: (p) => (p.reason && p.reason !== 'stop' ? `stopped it (${p.reason})` : 'stopped it'),
    after_server_status_change: (p) => `its status became ${p.status} (was ${p.previousStatus})`,
    after_server_crash: (p) => `it crashed${p.reason ? `: ${p.reason}` : ''}`,
    after_command_send: (p) => `sent ${short(p.command)}`,
    after_player_join: (p) => `${p.player} joined`,
    after_player_leave: (p) => `${p.player} left`,
    after_allowlist_change: (p) =>
      `${p.change === 'add' ? 'added' : 'removed'} ${p.player} ${p.change === 'add' ? 'to' : 'from'} the allowlist`,
    after_operator_change: (p) =>
      `${p.change === 'add' ? 'made' : 'removed'} ${p.player} ${p.change === 'add' ? 'an operator' : 'as an operator'}`,
    after_backup: () => 'backed it up',
    after_restore: (p) => `restored ${p.file ?? 'a backup'}`,
    after_prune_backups: () => 'pruned its old backups',
    after_world_export: () => 'exported its world',
    after_world_import: () => 'imported a world',
    after_server_install: (p) => `installed ${p.serverName ?? p.name}`,
    after_properties_change: () => 'changed its server.properties',
    after_delete_server_data: () => 'deleted its files',
    after_file_write: (p) => `wrote ${p.path}`,
    after_file_upload: (p) => `uploaded ${p.path}`,
    after_file_rename: (p) => `renamed ${p.path} to ${p.to}`,
    after_directory_create: (p) => `made the folder ${p.path}`,
    after_file_delete: (p) => `deleted ${p.path}`,
    after_setting_update: (p) => (p.mode === 'unset' ? `unset ${p.key}` : `set ${p.key} to ${short(p.value)}`),
    after_set_plugin_status: (p) => `${p.enabled ? 'enabled' : 'disabled'} the plugin ${p.pluginName}`,
    'auth:user_created': (p) => `created the user ${p.username} (${p.role})`,
    'auth:user_role_changed': (p) => `made ${p.username} ${p.role} (was ${p.previous})`,
    'auth:user_password_changed': (p) => `changed the password of ${p.username}`,
    'auth:user_deleted': (p) => `deleted the user ${p.username}`,
    'auth:token_created': (p) => `created the API token ${p.name} for ${p.owner} (${p.role})`,
    'auth:token_revoked': (p) => `revoked the API token ${p.name}`,
    'auth:session_revoked': (p) => `signed ${p.username} out`,
    'auth:two_factor_enabled': (p) => `turned two-factor sign-in on for ${p.username}`,
    'auth:two_factor_disabled': (p) => `${p.reset ? 'reset' : 'turned off'} two-factor sign-in of ${p.username}`,
    'auth:recovery_code_used': (p) => `${p.username} signed in with a recovery code (${p.remaining} left)`,
    'auth:sign_in_failed': (p) => `a sign-in as ${p.username} failed${p.code ? ' (a wrong code)' : ''}`,
    'auth:sign_in_locked': (p) => `sign-ins as ${p.username} are locked for ${p.seconds} s`,
    'auth:server_access_changed': (p) => `gave ${p.username} on ${p.server}: ${list_(p.rights)}`,
    'auth:server_access_cleared': (p) => `gave ${p.username} back every server`,
    'settings:marked_secret': (p) => `made ${p.key} secret`,
    'plugins:loaded': (p) => `loaded the plugin ${p.name}`,
    'plugins:failed': (p) => `the plugin ${p.name} failed${p.reason ? `: ${p.reason}` : ''}`,
    'plugins:hook_failed': (p) => `a hook of the plugin ${p.plugin ?? p.name} failed`,
    'plugins:event_triggered': (p) => `triggered ${p.event}`,
    'tasks:started': (p) => `began ${p.name}`,
    'tasks:finished': (p) => `${p.name}: ${p.state}`,
  }
  /** A type said as words: `servers:schedule_added` → "schedule added". */
  const words = (type) => type.replace(/^(after_|[a-z]+:)/, '').replaceAll('_', ' ')
  const sentence = (e) => {
    try {
      return (SAY[e.type] ?? (() => words(e.type)))(e.payload ?? {})
    } catch {
      return words(e.type)
    }
  }

  const entry = (e) => {
    const server = serverOf(e)
    return el(
      'li',
      { value: e.seq, 'data-seq': e.seq },
      el(
        'p',
        {},
        el('strong', {}, who(e.actor)),
        ' ',
        sentence(e),
        server
          ? el('span', { class: 'muted' }, ' · ', el('a', { href: `/servers/${encodeURIComponent(server)}` }, server))
          : '',
      ),
      el(
        'small',
        { class: 'muted' },
        el(
          'time',
          { datetime: new Date(e.time).toISOString(), title: new Date(e.time).toLocaleString() },
          when(e.time),
        ),
        ` · #${e.seq} · `,
        el('code', {}, e.type),
      ),
      el('details', {}, el('summary', {}, 'Raw JSON'), el('pre', { class: 'payload' }, JSON.stringify(e, null, 2))),
    )
  }

  /** The filters as the log's query (a kind chosen stands for its types; else those typed). */
  const query = () => {
    const data = new FormData(form)
    const typed = String(data.get('types') || '')
    const types = String(data.get('kind') || typed)
    const q = new URLSearchParams({ limit: String(PAGE), tail: 'true' })
    if (types) q.set('types', types)
    for (const field of ['server', 'actor']) {
      const value = String(data.get(field) || '').trim()
      if (value) q.set(field, value)
    }
    return q
  }
  /** Whether a live fact passes the filters (as the query would). */
  const passes = (e, q) => {
    const types = (q.get('types') || '').split(',').filter(Boolean)
    if (types.length && !types.some((t) => (t.endsWith('*') ? e.type.startsWith(t.slice(0, -1)) : e.type === t)))
      return false
    if (q.get('server') && serverOf(e) !== q.get('server')) return false
    if (q.get('actor') && !String(e.actor).toLowerCase().includes(q.get('actor').toLowerCase())) return false
    return true
  }

  async function page(q, before) {
    if (before !== undefined) q.set('before', String(before))
    const { events } = await api('GET', `/api/events?${q}`)
    // Newest first; the log answers the newest page oldest first.
    list.append(...[...events].reverse().map(entry))
    oldest = events[0]?.seq
    older.hidden = events.length < PAGE
  }
  async function load() {
    source?.close()
    list.replaceChildren()
    const q = query()
    shown = q
    await page(new URLSearchParams(q))
    if (list.childElementCount === 0) list.append(el('li', { class: 'muted empty' }, 'Nothing recorded matches.'))
    if (!form.follow.checked) return
    source = stream(['event:*'], ({ data }) => {
      if (!passes(data, q)) return
      list.querySelector('.empty')?.remove()
      list.prepend(entry(data))
      while (list.childElementCount > 1000) list.lastElementChild.remove()
    })
  }
  older.addEventListener('click', () => page(new URLSearchParams(shown), oldest).catch(fail))
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    load().catch(fail)
  })
  form.follow.addEventListener('change', () => load().catch(fail))
  load().catch(fail)
})()
