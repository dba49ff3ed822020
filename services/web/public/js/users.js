'use strict'
;(() => {
  const { api, toast, fail, el, formData, when, ask } = window.sm
  const page = document.getElementById('users-page')
  const role = page.dataset.role
  const usersBody = document.getElementById('users')
  async function loadUsers() {
    if (!usersBody) return
    const { users } = await api('GET', '/api/users')
    // The last admin stays one: its role and its Delete are not offered (the server refuses them too).
    const lastAdmin = users.filter((u) => u.role === 'admin').length === 1
    const keeps = (u) => lastAdmin && u.role === 'admin'
    const keptWhy = 'The last admin: make another user admin first'
    usersBody.replaceChildren(
      ...users.map((u) => {
        const roleCell =
          role === 'admin'
            ? el(
                'select',
                {
                  'aria-label': `Role of ${u.username}`,
                  disabled: keeps(u),
                  title: keeps(u) ? keptWhy : undefined,
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
        const resetTwoFactor =
          role === 'admin' && u.twoFactor
            ? el(
                'button',
                {
                  class: 'small outline secondary',
                  title: 'For a user who lost their phone and recovery codes: they sign in with their password again',
                  onclick: async () => {
                    if (
                      !(await ask(`Turn two-factor sign-in off for ${u.username}?`, { ok: 'Turn off', danger: true }))
                    )
                      return
                    await api('DELETE', `/api/users/${encodeURIComponent(u.username)}/two-factor`).then(() => {
                      toast(`Two-factor sign-in is off for ${u.username}`, 'success')
                      return loadUsers()
                    }, fail)
                  },
                },
                'Reset 2FA',
              )
            : ''
        const remove =
          role === 'admin'
            ? el(
                'button',
                {
                  class: 'small outline secondary',
                  disabled: keeps(u),
                  title: keeps(u) ? keptWhy : undefined,
                  onclick: async () => {
                    if (!(await ask(`Delete ${u.username} and their API tokens?`, { ok: 'Delete', danger: true })))
                      return
                    await api('DELETE', `/api/users/${encodeURIComponent(u.username)}`).then(loadUsers, fail)
                  },
                },
                'Delete',
              )
            : ''
        // Every server, or those granted (each a link to its page's Access), and for admins a way back to every one.
        const held = u.role !== 'admin' && u.servers
        const serversCell = held
          ? Object.keys(u.servers).length === 0
            ? el('span', { class: 'muted' }, 'none')
            : el(
                'span',
                {},
                ...Object.entries(u.servers).flatMap(([server, rights], i) => [
                  i > 0 ? ', ' : '',
                  el(
                    'a',
                    { href: `/servers/${encodeURIComponent(server)}#server-access`, title: rights.join(', ') },
                    server,
                  ),
                ]),
              )
          : 'all'
        const everyServer =
          role === 'admin' && held
            ? el(
                'button',
                {
                  class: 'small outline secondary',
                  title: "Give back the role's reach on every server (the grants go)",
                  onclick: () =>
                    api('DELETE', `/api/users/${encodeURIComponent(u.username)}/servers`).then(() => {
                      toast(`${u.username} has the ${u.role} role's reach on every server again`, 'success')
                      return loadUsers()
                    }, fail),
                },
                'All servers',
              )
            : ''
        return el(
          'tr',
          {},
          el('td', {}, u.username),
          el('td', {}, roleCell),
          el('td', {}, serversCell, ' ', everyServer),
          el('td', {}, u.twoFactor ? 'on' : 'off'),
          el('td', {}, when(u.createdAt)),
          el('td', { class: 'actions' }, resetTwoFactor, remove),
        )
      }),
    )
  }
  const tokensBody = document.getElementById('tokens')
  async function loadTokens() {
    if (!tokensBody) return
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
                onclick: async () => {
                  if (!(await ask(`Revoke the token '${t.name}'?`, { ok: 'Revoke', danger: true }))) return
                  await api('DELETE', `/api/tokens/${t.id}`).then(loadTokens, fail)
                },
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
  // Rights on a server (admins): the users who may be held (not admins), the servers, and the rights
  // the chosen user has on the chosen server, to change or revoke.
  const grantForm = document.getElementById('grant-form')
  if (grantForm) {
    const { username, server } = grantForm.elements
    const boxes = () => [...grantForm.querySelectorAll('input[name="rights"]')]
    let reach = {}
    const fill = async () => {
      const [{ users }, { servers }] = await Promise.all([api('GET', '/api/users'), api('GET', '/api/servers')])
      const keep = [username.value, server.value]
      username.replaceChildren(
        el('option', { value: '' }, 'a user…'),
        ...users
          .filter((u) => u.role !== 'admin')
          .map((u) => el('option', { value: u.username }, `${u.username} (${u.role})`)),
      )
      server.replaceChildren(el('option', { value: '' }, 'a server…'), ...servers.map((s) => el('option', {}, s.name)))
      ;[username.value, server.value] = keep
      reach = Object.fromEntries(users.map((u) => [u.username, u.servers || {}]))
    }
    const show = () => {
      const rights = reach[username.value]?.[server.value] || []
      for (const box of boxes()) box.checked = rights.includes(box.value)
    }
    username.addEventListener('change', show)
    server.addEventListener('change', show)
    const send = async (method, body) => {
      const path = `/api/users/${encodeURIComponent(username.value)}/servers/${encodeURIComponent(server.value)}`
      try {
        const { access } = await api(method, path, body)
        toast(`${access.username} may now on ${access.server}: ${access.rights.join(', ') || 'nothing'}`, 'success')
        await Promise.all([fill(), loadUsers()])
        show()
      } catch (error) {
        fail(error)
      }
    }
    grantForm.addEventListener('submit', (event) => {
      event.preventDefault()
      const rights = boxes()
        .filter((b) => b.checked)
        .map((b) => b.value)
      if (rights.length === 0) return toast('Tick at least one right, or Revoke.', 'warning')
      send('PUT', { rights })
    })
    grantForm.querySelector('[data-revoke]').addEventListener('click', () => {
      if (grantForm.reportValidity()) send('DELETE')
    })
    fill().catch(fail)
  }
  const tokenForm = document.getElementById('token-form')
  tokenForm?.addEventListener('submit', async (event) => {
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

  // Two-factor sign-in of the signed-in user.
  const part = (id) => document.getElementById(id)
  const [status, begin, enrol, confirmForm, codes, disableForm] = [
    'tf-status',
    'tf-begin',
    'tf-enrol',
    'tf-confirm',
    'tf-codes',
    'tf-disable',
  ].map(part)
  async function loadTwoFactor() {
    const state = await api('GET', '/api/account/two-factor')
    status.textContent = state.enabled
      ? `Two-factor sign-in is on: signing in needs a code from your authenticator app. Recovery codes left: ${state.recoveryCodesLeft}.`
      : 'Two-factor sign-in is off: your password alone signs you in. Turn it on to also need a code from an authenticator app on your phone.'
    begin.hidden = state.enabled
    disableForm.hidden = !state.enabled
    if (state.enabled) enrol.hidden = true
  }
  begin.addEventListener('click', async () => {
    try {
      const begun = await api('POST', '/api/account/two-factor')
      part('tf-qr').src = `data:image/svg+xml;base64,${btoa(begun.qr_svg)}`
      part('tf-secret').textContent = begun.secret
      enrol.hidden = false
      begin.hidden = true
      confirmForm.querySelector('input').focus()
    } catch (error) {
      fail(error)
    }
  })
  confirmForm.addEventListener('submit', async (event) => {
    event.preventDefault()
    try {
      const done = await api('POST', '/api/account/two-factor/confirm', { code: formData(confirmForm).code })
      // Every session of the account ended (this one too): the codes first, then a sign-in with a code.
      enrol.hidden = true
      codes.hidden = false
      codes.querySelector('.token').textContent = done.recovery_codes.join('\n')
      status.textContent =
        'Two-factor sign-in is on, and your sessions ended: copy your recovery codes, then sign in again with a code.'
      toast('Two-factor sign-in is on', 'success')
    } catch (error) {
      fail(error)
    }
  })
  disableForm.addEventListener('submit', async (event) => {
    event.preventDefault()
    try {
      await api('POST', '/api/account/two-factor/disable', { code: formData(disableForm).code })
      disableForm.reset()
      codes.hidden = true
      toast('Two-factor sign-in is off', 'success')
      await loadTwoFactor()
      await loadUsers()
    } catch (error) {
      fail(error)
    }
  })
  loadTwoFactor().catch(fail)
})()
