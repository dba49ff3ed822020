'use strict'
;(() => {
  const { api, stream, catchUp, power } = window.sm
  const rows = new Map([...document.querySelectorAll('tr[data-server]')].map((row) => [row.dataset.server, row]))
  const count = () => {
    const running = [...document.querySelectorAll('[data-status]')].filter((s) => s.textContent === 'running').length
    const target = document.getElementById('running-count')
    if (target) target.textContent = String(running)
  }
  const show = (name, status) => {
    const row = rows.get(name)
    const badge = row?.querySelector('[data-status]')
    if (!badge) return
    badge.textContent = status
    badge.className = `status status-${status}`
    power(row, status)
    count()
  }
  for (const row of rows.values()) power(row, undefined)
  const asked = catchUp()
  const source = stream(['server_status'], ({ type, data }) => {
    asked.live(data.serverName)
    if (type !== 'server_stopping') return show(data.serverName, data.status)
    // A stop was asked and its players are being warned: stopping until its hooks are over; then
    // the status as it is (stopped, or still running when a plugin refused the stop).
    if (!data.over) return show(data.serverName, 'stopping')
    asked
      .ask(
        () => api('GET', `/api/servers/${encodeURIComponent(data.serverName)}/status`),
        (r, fresh) => fresh(data.serverName) && show(data.serverName, r.run.status),
      )
      .catch(() => {})
  })
  // What changed before the stream opened (or while it was reconnecting).
  source.onopen = () =>
    asked
      .ask(
        () => api('GET', '/api/servers'),
        (r, fresh) => {
          for (const s of r.servers) if (fresh(s.name)) show(s.name, s.status)
        },
      )
      .catch(() => {})
})()
