'use strict'
;(() => {
  const { stream } = window.sm
  const rows = new Map([...document.querySelectorAll('tr[data-server]')].map((row) => [row.dataset.server, row]))
  const count = () => {
    const running = [...document.querySelectorAll('[data-status]')].filter((s) => s.textContent === 'running').length
    const target = document.getElementById('running-count')
    if (target) target.textContent = String(running)
  }
  stream(['server_status'], ({ data }) => {
    const badge = rows.get(data.serverName)?.querySelector('[data-status]')
    if (!badge) return
    badge.textContent = data.status
    badge.className = `status status-${data.status}`
    count()
  })
})()
