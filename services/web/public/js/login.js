'use strict'
;(() => {
  const { api, formData } = window.sm
  const show = (form, message) => {
    const box = form.querySelector('.form-error')
    box.textContent = message
    box.hidden = !message
  }
  const login = document.getElementById('login-form')
  login?.addEventListener('submit', async (event) => {
    event.preventDefault()
    show(login, '')
    const data = formData(login)
    const codeField = document.getElementById('code-field')
    try {
      await api('POST', '/auth/token', {
        username: data.username,
        password: data.password,
        remember_me: data.remember_me === 'on',
        ...(codeField.hidden ? {} : { code: data.code }),
      })
      location.href = login.dataset.next || '/'
    } catch (error) {
      // An account with two-factor sign-in: the password was right, now its code.
      if (error.code === 'SM_ERR_AUTH_CODE_REQUIRED') {
        codeField.hidden = false
        codeField.querySelector('input').focus()
        return show(login, 'Type the code your authenticator app shows for this account.')
      }
      show(login, error.message)
    }
  })
  const setup = document.getElementById('setup-form')
  setup?.addEventListener('submit', async (event) => {
    event.preventDefault()
    const data = formData(setup)
    if (data.password !== data.confirm) return show(setup, 'The two passwords differ.')
    try {
      await api('POST', '/api/setup/create-first-user', { username: data.username, password: data.password })
      location.href = '/'
    } catch (error) {
      show(setup, error.message)
    }
  })
})()
