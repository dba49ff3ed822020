'use strict'
;(() => {
  const { api, fail, el, when } = window.sm
  const body = document.getElementById('hosts')
  const link = document.getElementById('nats')
  const gb = (bytes) => `${(bytes / 1024 ** 3).toFixed(1)} GB`
  const draw = ({ nats, hosts }) => {
    link.textContent = !nats.configured
      ? 'This manager is on no NATS broker: every server runs on this machine (server-manager start --nats <url>).'
      : nats.connected
        ? `On the broker at ${nats.url} since ${new Date(nats.since).toLocaleString()}.`
        : `Not on the broker at ${nats.url}: ${nats.reason}`
    body.replaceChildren(
      ...hosts.map((h) =>
        el(
          'tr',
          { 'data-host': h.name },
          el('td', {}, h.name, el('br'), el('small', { class: 'muted' }, h.hostname)),
          el(
            'td',
            {},
            el('span', { class: `state state-${h.online ? 'running' : 'stopped'}` }, h.online ? 'online' : 'offline'),
            el('br'),
            el('small', { class: 'muted' }, `since ${when(h.since)}`),
          ),
          el('td', {}, h.version),
          el('td', {}, h.load.map((l) => l.toFixed(2)).join(' ')),
          el('td', {}, `${gb(h.memory.total - h.memory.free)} of ${gb(h.memory.total)}`),
          el('td', {}, gb(h.disk.free)),
          el('td', {}, h.servers.length ? h.servers.map((s) => `${s.server} (${s.status})`).join(', ') : '–'),
        ),
      ),
    )
    if (hosts.length === 0)
      body.append(el('tr', {}, el('td', { colspan: 7, class: 'muted' }, 'No host agent has joined yet.')))
  }
  // Agents beat every 5 s: the page follows at that pace.
  const load = () => api('GET', '/api/hosts').then(draw, fail)
  load()
  setInterval(load, 5_000)
})()
