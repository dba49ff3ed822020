'use strict'
;(() => {
  const { api, toast, fail, el } = window.sm
  const root = document.getElementById('server-page')
  const form = document.getElementById('access-form')
  const body = document.getElementById('access')
  if (!form || !body) return
  const name = root.dataset.server
  const grantsOf = (username) => `/api/users/${encodeURIComponent(username)}/servers/${encodeURIComponent(name)}`
  const boxes = () => [...form.querySelectorAll('input[name="rights"]')]

  /** Fills the form with a user's rights here (none: a new grant), to change them. */
  const edit = (username, rights) => {
    form.elements.username.value = username
    for (const box of boxes()) box.checked = rights.includes(box.value)
    form.querySelector('button[type="submit"]').textContent = rights.length > 0 ? 'Save rights' : 'Grant'
    form.elements.username.focus()
  }

  async function load() {
    const [{ access }, { users }] = await Promise.all([
      api('GET', `/api/servers/${encodeURIComponent(name)}/access`),
      api('GET', '/api/users'),
    ])
    body.replaceChildren(
      ...access.map((a) =>
        el(
          'tr',
          {},
          el('td', {}, a.username),
          el('td', {}, a.role),
          el('td', {}, a.rights.join(', ')),
          el(
            'td',
            { class: 'actions' },
            el('button', { class: 'small outline', onclick: () => edit(a.username, a.rights) }, 'Edit'),
            el(
              'button',
              {
                class: 'small outline secondary',
                onclick: () =>
                  api('DELETE', grantsOf(a.username)).then(() => {
                    toast(`${a.username} may no longer see ${name}`, 'success')
                    return load()
                  }, fail),
              },
              'Revoke',
            ),
          ),
        ),
      ),
    )
    if (access.length === 0)
      body.append(
        el('tr', {}, el('td', { colspan: 4, class: 'muted' }, 'Only the admins, and users with every server’s reach.')),
      )
    // Admins have every right already: only moderators and users are offered.
    const chosen = form.elements.username.value
    form.elements.username.replaceChildren(
      el('option', { value: '' }, 'a user…'),
      ...users
        .filter((u) => u.role !== 'admin')
        .map((u) => el('option', { value: u.username }, `${u.username} (${u.role})`)),
    )
    form.elements.username.value = chosen
  }

  form.elements.username.addEventListener('change', () => {
    // Picking someone who has rights here shows them, to change.
    const row = [...body.querySelectorAll('tr')].find(
      (tr) => tr.firstChild?.textContent === form.elements.username.value,
    )
    edit(form.elements.username.value, row ? row.children[2].textContent.split(', ') : [])
  })
  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    const username = form.elements.username.value
    const rights = boxes()
      .filter((b) => b.checked)
      .map((b) => b.value)
    if (rights.length === 0) return toast('Tick at least one right (or Revoke to take them all).', 'warning')
    try {
      const { access } = await api('PUT', grantsOf(username), { rights })
      toast(`${access.username} may now on ${name}: ${access.rights.join(', ')}`, 'success')
      form.reset()
      form.querySelector('button[type="submit"]').textContent = 'Grant'
      await load()
    } catch (error) {
      fail(error)
    }
  })
  load().catch(fail)
})()
