'use strict'
;(() => {
  const { api, fail, el, stream } = window.sm
  const body = document.getElementById('events')
  const form = document.getElementById('events-filter')
  let source
  const row = (e) =>
    el(
      'tr',
      {},
      el('td', {}, e.seq),
      el('td', {}, new Date(e.time).toLocaleString()),
      el('td', {}, el('code', {}, e.type)),
      el('td', {}, e.actor),
      el(
        'td',
        {},
        el(
          'code',
          {
            class: 'payload',
            title: 'Click to show it whole',
            onclick: (ev) => ev.currentTarget.classList.toggle('expanded'),
          },
          JSON.stringify(e.payload),
        ),
      ),
    )
  const matches = (types, type) =>
    types.length === 0 || types.some((t) => (t.endsWith('*') ? type.startsWith(t.slice(0, -1)) : type === t))
  async function load() {
    source?.close()
    const types = form.types.value
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean)
    const query = new URLSearchParams({ limit: '200', tail: 'true' })
    if (types.length) query.set('types', types.join(','))
    const { events } = await api('GET', `/api/events?${query}`)
    body.replaceChildren(...events.map(row))
    if (!form.follow.checked) return
    source = stream(['event:*'], ({ data }) => {
      if (!matches(types, data.type)) return
      body.append(row(data))
      while (body.childElementCount > 1000) body.firstElementChild.remove()
    })
  }
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    load().catch(fail)
  })
  form.follow.addEventListener('change', () => load().catch(fail))
  load().catch(fail)
})()
