'use strict'
;(() => {
  const { api, toast, fail, el } = window.sm
  const body = document.getElementById('settings')
  const filter = document.getElementById('settings-filter')
  const flatten = (tree, prefix = '') =>
    Object.entries(tree).flatMap(([key, value]) =>
      value && typeof value === 'object' && !Array.isArray(value)
        ? flatten(value, `${prefix}${key}.`)
        : [[`${prefix}${key}`, value]],
    )
  async function load() {
    const { settings } = await api('GET', '/api/settings')
    body.replaceChildren(
      ...flatten(settings).map(([key, value]) => {
        const input = el('input', { value: JSON.stringify(value), 'aria-label': key })
        const save = async () => {
          let parsed
          try {
            parsed = JSON.parse(input.value)
          } catch {
            parsed = input.value
          }
          try {
            await api('PUT', `/api/settings/${encodeURIComponent(key)}`, { value: parsed })
            toast(`${key} saved`, 'success')
          } catch (error) {
            fail(error)
          }
        }
        return el(
          'tr',
          { 'data-key': key },
          el('th', { scope: 'row' }, el('code', {}, key)),
          el('td', {}, input),
          el('td', {}, el('button', { class: 'small', onclick: save }, 'Save')),
        )
      }),
    )
  }
  filter.addEventListener('input', () => {
    const text = filter.value.toLowerCase()
    for (const row of body.children) row.hidden = !row.dataset.key.toLowerCase().includes(text)
  })
  load().catch(fail)
})()
