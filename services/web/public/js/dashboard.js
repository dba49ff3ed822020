'use strict'
;(() => {
  const { api, stream, catchUp, power, followStopping } = window.sm
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
    if (type === 'server_stopping') return followStopping(data, asked, (status) => show(data.serverName, status))
    asked.live(data.serverName)
    show(data.serverName, data.status)
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
