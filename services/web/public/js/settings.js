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
    const [{ settings }, described] = await Promise.all([
      api('GET', '/api/settings'),
      api('GET', '/api/settings/described'),
    ])
    // What each declared setting is: its summary, its default and its unit, under its name.
    const about = new Map(described.settings.map((d) => [d.key, d]))
    const explained = (key) => {
      const d = about.get(key)
      if (!d) return ''
      const unit = d.unit ? ` ${d.unit}` : ''
      return el(
        'small',
        { class: 'muted setting-about' },
        d.summary,
        el('br'),
        `Default: ${JSON.stringify(d.default)}${unit}`,
      )
    }
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
          el('th', { scope: 'row' }, el('code', {}, key), el('br'), explained(key)),
          el('td', {}, input),
          el('td', {}, el('button', { class: 'small', onclick: save }, 'Save')),
        )
      }),
    )
  }
  filter.addEventListener('input', () => {
    const text = filter.value.toLowerCase()
    // By name or by what it is.
    for (const row of body.children) row.hidden = !row.textContent.toLowerCase().includes(text)
  })
  load().catch(fail)
})()
