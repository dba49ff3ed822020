'use strict'
;(() => {
  const { api, toast, fail, el, upload, ask } = window.sm
  const root = document.getElementById('server-page')
  const name = root.dataset.server
  const base = `/api/servers/${encodeURIComponent(name)}`
  const body = document.getElementById('config')
  // The server's own settings, drawn for those who may change them.
  const settingsSection = () => {
    // Each setting as the type its value has; empty (or "inherit") gives it back to the global one.
    const input = (setting) => {
      const attrs = { name: setting.key, 'aria-label': setting.key, 'data-own': setting.own ? '1' : '' }
      if (setting.kind === 'boolean') {
        const select = el(
          'select',
          attrs,
          el('option', { value: '' }, setting.inherits ? 'inherit' : 'default'),
          el('option', { value: 'true' }, 'yes'),
          el('option', { value: 'false' }, 'no'),
        )
        select.value = setting.own ? String(setting.value) : ''
        return select
      }
      if (setting.kind === 'json')
        return el('input', { ...attrs, value: JSON.stringify(setting.value), 'data-json': '1' })
      return el('input', {
        ...attrs,
        type: 'number',
        min: 0,
        value: setting.own ? setting.value : '',
        placeholder:
          setting.value === undefined ? 'unset' : `${setting.value} (${setting.inherits ? 'inherited' : 'default'})`,
      })
    }
    async function load() {
      const { settings } = await api('GET', `${base}/config`)
      body.replaceChildren(
        ...settings.map((s) =>
          el(
            'tr',
            {},
            el('th', { scope: 'row' }, el('code', {}, s.key), el('br'), el('small', { class: 'muted' }, s.summary)),
            el('td', {}, input(s)),
          ),
        ),
      )
    }
    document.getElementById('config-form').addEventListener('submit', async (event) => {
      event.preventDefault()
      const settings = {}
      for (const field of body.querySelectorAll('[name]')) {
        const text = field.value.trim()
        const value =
          text === ''
            ? null
            : field.dataset.json
              ? JSON.parse(text)
              : field.tagName === 'SELECT'
                ? text === 'true'
                : Number(text)
        // Only what changes: a field left as it was (own, or inherited) is not sent.
        if (value === null && !field.dataset.own) continue
        settings[field.name] = value
      }
      try {
        await api('PUT', `${base}/config`, { settings })
        toast('Settings saved.', 'success')
        await load()
      } catch (error) {
        fail(error)
      }
    })
    load().catch(fail)
  }
  if (body) settingsSection()

  const update = document.getElementById('update-form')
  // Update only once a release is chosen.
  const release = update?.querySelector('input[type="file"]')
  const updateButton = update?.querySelector('button[type="submit"]')
  const chosen = () => {
    if (updateButton) updateButton.disabled = !release?.files?.length
  }
  release?.addEventListener('change', chosen)
  chosen()
  update?.addEventListener('submit', async (event) => {
    event.preventDefault()
    const form = new FormData(update)
    form.set('stop', form.get('stop') === 'true' ? 'true' : 'false')
    const progress = document.getElementById('update-progress')
    const status = document.getElementById('update-status')
    const button = update.querySelector('button')
    button.disabled = true
    progress.hidden = false
    try {
      const reply = await upload(`${base}/update`, form, {
        onProgress: (percent) => {
          progress.value = percent
        },
        onSent: () => {
          progress.removeAttribute('value')
          status.textContent = 'Checking the release, backing up, updating…'
        },
      })
      status.textContent = `Updated: replaced ${reply.replaced.join(', ') || 'nothing'}; config and worlds kept.`
      toast(`'${name}' updated.`, 'success')
    } catch (error) {
      status.textContent = ''
      fail(error)
    } finally {
      button.disabled = false
      progress.hidden = true
    }
  })

  // How it runs: only the fields changed are sent; an emptied one is cleared (null).
  const profileForm = document.getElementById('profile-form')
  if (profileForm) {
    const lines = (text) =>
      String(text || '')
        .split('\n')
        .map((line) => line.trim())
        .filter(Boolean)
    const read = (key, text) => {
      if (key === 'args' || key === 'errorLines' || key === 'configFiles') return lines(text)
      if (key === 'env')
        return Object.fromEntries(lines(text).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]))
      return String(text)
    }
    const clearable = [
      'worldDir',
      'readyLine',
      'errorLines',
      'chatLine',
      'sayCommand',
      'configFiles',
      'hotBackup',
      'hotBackupDone',
    ]
    const before = Object.fromEntries(new FormData(profileForm).entries())
    profileForm.addEventListener('submit', async (event) => {
      event.preventDefault()
      const now = Object.fromEntries(new FormData(profileForm).entries())
      const body = {}
      for (const [key, text] of Object.entries(now)) {
        if (text === before[key]) continue
        const value = read(key, text)
        const empty = value === '' || (Array.isArray(value) && value.length === 0)
        body[key] = empty && clearable.includes(key) ? null : value
      }
      if (Object.keys(body).length === 0) return toast('Nothing changed.')
      try {
        const { changed } = await api('PATCH', base, body)
        toast(`Changed: ${changed.join(', ')}.`, 'success')
        Object.assign(before, now)
      } catch (error) {
        fail(error)
      }
    })
  }

  for (const button of document.querySelectorAll('[data-remove]'))
    button.addEventListener('click', async () => {
      const remove = button.dataset.remove === 'delete'
      const question = remove
        ? `Remove '${name}' and DELETE its folder and every file in it? This cannot be undone.`
        : `Remove '${name}' from server-manager? Its files stay where they are.`
      if (!(await ask(question, { ok: remove ? 'Remove and delete' : 'Remove', danger: true }))) return
      try {
        const reply = await api('DELETE', `${base}${remove ? '?delete_files=true' : ''}`)
        toast(reply.message, 'success')
        location.href = '/'
      } catch (error) {
        fail(error)
      }
    })
})()
