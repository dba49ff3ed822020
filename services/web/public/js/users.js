'use strict'
;(() => {
  const { api, toast, fail, el, formData, when } = window.sm
  const page = document.getElementById('users-page')
  const role = page.dataset.role
  const usersBody = document.getElementById('users')
  async function loadUsers() {
    if (!usersBody) return
    const { users } = await api('GET', '/api/users')
    usersBody.replaceChildren(
      ...users.map((u) => {
        const roleCell =
          role === 'admin'
            ? el(
                'select',
                {
                  'aria-label': `Role of ${u.username}`,
                  onchange: (e) =>
                    api('PUT', `/api/users/${encodeURIComponent(u.username)}/role`, { role: e.target.value }).then(
                      () => toast(`${u.username} is now ${e.target.value}`, 'success'),
                      (error) => {
                        fail(error)
                        loadUsers()
                      },
                    ),
                },
                ...['user', 'moderator', 'admin'].map((r) => el('option', { selected: r === u.role }, r)),
              )
            : u.role
        const remove =
          role === 'admin'
            ? el(
                'button',
                {
                  class: 'small outline secondary',
                  onclick: () =>
                    confirm(`Delete ${u.username} and their API tokens?`) &&
                    api('DELETE', `/api/users/${encodeURIComponent(u.username)}`).then(loadUsers, fail),
                },
                'Delete',
              )
            : ''
        return el(
          'tr',
          {},
          el('td', {}, u.username),
          el('td', {}, roleCell),
          el('td', {}, when(u.createdAt)),
          el('td', {}, remove),
        )
      }),
    )
  }
  const tokensBody = document.getElementById('tokens')
  async function loadTokens() {
    const { tokens } = await api('GET', '/api/tokens')
    tokensBody.replaceChildren(
      ...tokens.map((t) =>
        el(
          'tr',
          {},
          el('td', {}, t.name, el('br'), el('small', { class: 'muted' }, t.id)),
          el('td', {}, t.role),
          el('td', {}, t.owner),
          el('td', {}, t.expiresAt ? when(t.expiresAt) : 'never'),
          el(
            'td',
            {},
            el(
              'button',
              {
                class: 'small outline secondary',
                onclick: () =>
                  confirm(`Revoke the token '${t.name}'?`) &&
                  api('DELETE', `/api/tokens/${t.id}`).then(loadTokens, fail),
              },
              'Revoke',
            ),
          ),
        ),
      ),
    )
    if (tokens.length === 0) tokensBody.append(el('tr', {}, el('td', { colspan: 5, class: 'muted' }, 'No API tokens.')))
  }
  const userForm = document.getElementById('user-form')
  userForm?.addEventListener('submit', async (event) => {
    event.preventDefault()
    try {
      await api('POST', '/api/users', formData(userForm))
      userForm.reset()
      await loadUsers()
    } catch (error) {
      fail(error)
    }
  })
  const tokenForm = document.getElementById('token-form')
  tokenForm.addEventListener('submit', async (event) => {
    event.preventDefault()
    const data = formData(tokenForm)
    const body = { name: data.name, role: data.role }
    if (data.expires_days) body.expires_days = Number(data.expires_days)
    try {
      const created = await api('POST', '/api/tokens', body)
      const box = document.getElementById('new-token')
      box.hidden = false
      box.querySelector('.token').textContent = created.token
      tokenForm.reset()
      await loadTokens()
    } catch (error) {
      fail(error)
    }
  })
  loadUsers().catch(fail)
  loadTokens().catch(fail)
})()
