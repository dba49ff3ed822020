'use strict'
;(() => {
  const { api, toast, fail, el, formData, when } = window.sm
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
                  onclick: () =>
                    confirm(`Turn two-factor sign-in off for ${u.username}?`) &&
                    api('DELETE', `/api/users/${encodeURIComponent(u.username)}/two-factor`).then(() => {
                      toast(`Two-factor sign-in is off for ${u.username}`, 'success')
                      return loadUsers()
                    }, fail),
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
