// The server page's Players section: who is online and who played (live, on the players:<server>
// and server_status topics), and for admins the allowlist and operators with add and remove.
'use strict'
;(() => {
  const { api, toast, fail, el, stream, catchUp, formData, when } = window.sm
  const root = document.getElementById('players')
  if (!root) return
  const name = root.dataset.server
  const base = `/api/servers/${encodeURIComponent(name)}`

  /** `2h 5m`: a time played, to the minute past an hour, to the second below. */
  const duration = (ms) => {
    const s = Math.floor(ms / 1000)
    const [d, h, m] = [Math.floor(s / 86400), Math.floor((s % 86400) / 3600), Math.floor((s % 3600) / 60)]
    if (d) return `${d}d ${h}h`
    if (h) return `${h}h ${m}m`
    return m ? `${m}m ${s % 60}s` : `${s}s`
  }

  const onlineBox = document.getElementById('players-online')
  const historyBody = document.getElementById('player-history')

  function drawOnline(run) {
    const list = run.players
    if (run.status !== 'running') onlineBox.textContent = `nobody (the server is ${run.status})`
    else if (!list) onlineBox.textContent = 'not known yet (the manager has not seen a list or a join)'
    else {
      const count = list.max === undefined || list.max === null ? `${list.online}` : `${list.online} of ${list.max}`
      onlineBox.replaceChildren(
        `${count}${list.names.length ? ': ' : ''}`,
        ...list.names.flatMap((player, i) => [i ? ', ' : '', el('strong', { 'data-player': player }, player)]),
      )
    }
    onlineBox.classList.toggle('muted', !list || list.online === 0)
  }

  function drawHistory(players) {
    historyBody.replaceChildren(
      ...players.map((p) =>
        el(
          'tr',
          { 'data-player': p.name },
          el('td', {}, p.name),
          el('td', {}, p.id ? el('code', {}, p.id) : ''),
          el('td', {}, p.online ? 'online' : ''),
          el('td', {}, String(p.joins)),
          el('td', {}, duration(p.playedMs)),
          el('td', {}, when(p.lastSeen)),
        ),
      ),
    )
    if (players.length === 0)
      historyBody.append(
        el('tr', {}, el('td', { colspan: 6, class: 'muted' }, 'Nobody has joined while the manager ran.')),
      )
  }

  if (historyBody) {
    // Each change asks again; an answer overtaken by a later one is dropped (sm.catchUp). Who is
    // online and who played are asked together, so the two always agree (one failing draws neither).
    const asked = catchUp()
    const refresh = () =>
      asked
        .ask(
          () => Promise.all([api('GET', `${base}/status`), api('GET', `${base}/players/history`)]),
          ([{ run }, { players }]) => {
            drawOnline(run)
            drawHistory(players)
          },
        )
        .catch(fail)
    const source = stream([`players:${name}`, 'server_status'], (message) => {
      if (message.topic === `players:${name}` || message.data?.serverName === name) refresh()
    })
    // Loaded once the live stream is open (and again on a reconnect), so no join falls between.
    source.onopen = refresh
  }

  for (const section of document.querySelectorAll('.access-list')) {
    const list = section.dataset.list
    const body = section.querySelector('[data-entries]')
    const form = section.querySelector('[data-add]')
    const draw = (players) => {
      body.replaceChildren(
        ...players.map((p) =>
          el(
            'tr',
            { 'data-player': p.name || p.id },
            el('td', {}, p.name || el('span', { class: 'muted' }, 'not seen here')),
            el('td', {}, p.id ? el('code', {}, p.id) : ''),
            el(
              'td',
              {},
              el(
                'button',
                {
                  class: 'small outline secondary',
                  onclick: () => change('DELETE', `${base}/${list}/${encodeURIComponent(p.name || p.id)}`).catch(fail),
                },
                'Remove',
              ),
            ),
          ),
        ),
      )
      if (players.length === 0) body.append(el('tr', {}, el('td', { colspan: 3, class: 'muted' }, 'Nobody.')))
    }
    const change = async (method, url, payload) => {
      const result = await api(method, url, payload)
      draw(result.players)
      toast(result.message, result.changed ? 'success' : 'info')
      if (result.warning) toast(result.warning, 'warning')
    }
    form.addEventListener('submit', async (event) => {
      event.preventDefault()
      const button = form.querySelector('button')
      button.setAttribute('aria-busy', 'true')
      try {
        await change('POST', `${base}/${list}`, formData(form))
        form.reset()
      } catch (error) {
        fail(error)
      } finally {
        button.removeAttribute('aria-busy')
      }
    })
    api('GET', `${base}/${list}`).then((r) => draw(r.players), fail)
  }
})()
