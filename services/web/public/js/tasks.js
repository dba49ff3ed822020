'use strict'
;(() => {
  const { api, fail, el, stream, catchUp, when } = window.sm
  const body = document.getElementById('tasks')
  const tasks = new Map()
  const draw = () => {
    const list = [...tasks.values()].sort((a, b) => String(b.createdAt).localeCompare(String(a.createdAt)))
    body.replaceChildren(
      ...list.map((t) => {
        const percent = typeof t.percent === 'number' ? t.percent : t.state === 'succeeded' ? 100 : undefined
        const running = t.state === 'running' || t.state === 'queued'
        return el(
          'tr',
          { 'data-task': t.id },
          el('td', {}, t.name, el('br'), el('small', { class: 'muted' }, t.id)),
          el('td', {}, t.owner || ''),
          el(
            'td',
            {},
            el('span', { class: `state state-${t.state}` }, t.state),
            t.error ? el('br') : '',
            t.error ? el('small', { class: 'error-text' }, t.error.message) : '',
          ),
          el(
            'td',
            {},
            running || percent !== undefined ? el('progress', { value: percent ?? undefined, max: 100 }) : '',
            t.message ? el('small', {}, ` ${t.message}`) : '',
          ),
          el('td', {}, when(t.createdAt)),
          el(
            'td',
            {},
            running && document.querySelector('meta[name="user-role"]').content !== 'user'
              ? el(
                  'button',
                  {
                    class: 'small outline secondary',
                    onclick: () => api('POST', `/api/tasks/${t.id}/cancel`).catch(fail),
                  },
                  'Cancel',
                )
              : '',
          ),
        )
      }),
    )
    if (list.length === 0) body.append(el('tr', {}, el('td', { colspan: 6, class: 'muted' }, 'No tasks yet.')))
  }
  /** The fields of `object` among `keys` that it has. */
  const pick = (object, keys) =>
    Object.fromEntries(keys.filter((k) => object[k] !== undefined).map((k) => [k, object[k]]))
  const asked = catchUp()
  const source = stream(['tasks'], ({ type, data }) => {
    asked.live(data.id)
    const known = tasks.get(data.id) || { id: data.id, name: data.name, createdAt: new Date().toISOString() }
    if (type === 'tasks:started') tasks.set(data.id, { ...known, owner: data.owner, state: 'running' })
    if (type === 'tasks:progress')
      tasks.set(data.id, { ...known, state: 'running', percent: data.percent, message: data.message })
    if (type === 'tasks:finished')
      tasks.set(data.id, {
        ...known,
        state: data.state,
        error: data.error,
        percent: data.state === 'succeeded' ? 100 : known.percent,
      })
    draw()
  })
  source.onopen = () =>
    asked
      .ask(
        () => api('GET', '/api/tasks?limit=100'),
        (r, fresh) => {
          for (const t of r.tasks) {
            const known = tasks.get(t.id)
            // Overtaken: what the stream told of it (its state, progress, error) is newer than the answer.
            if (fresh(t.id) || !known) tasks.set(t.id, { ...known, ...t })
            else tasks.set(t.id, { ...t, ...pick(known, ['state', 'percent', 'message', 'error']) })
          }
          draw()
        },
      )
      .catch(fail)
})()
