'use strict'
;(() => {
  const { api, toast, fail, upload } = window.sm
  const open = (name) => {
    location.href = `/servers/${encodeURIComponent(name)}`
  }

  const install = document.getElementById('install-form')
  const progress = document.getElementById('install-progress')
  const status = document.getElementById('install-status')
  install.addEventListener('submit', async (event) => {
    event.preventDefault()
    const form = new FormData(install)
    if (!form.get('dir')) form.delete('dir')
    const button = install.querySelector('button')
    button.disabled = true
    button.setAttribute('aria-busy', 'true')
    progress.hidden = false
    progress.value = 0
    try {
      const { server } = await upload('/api/servers/install', form, {
        onProgress: (percent) => {
          progress.value = percent
          status.textContent = `Uploading: ${percent}%`
        },
        onSent: () => {
          progress.removeAttribute('value') // indeterminate while it is unpacked
          status.textContent = 'Unpacking and checking the server…'
        },
      })
      toast(`Installed '${server.name}' in ${server.dir}.`, 'success')
      open(server.name)
    } catch (error) {
      status.textContent = ''
      fail(error)
    } finally {
      button.disabled = false
      button.removeAttribute('aria-busy')
      progress.hidden = true
    }
  })

  const add = document.getElementById('add-form')
  const lines = (text) =>
    String(text || '')
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean)
  add.addEventListener('submit', async (event) => {
    event.preventDefault()
    const form = Object.fromEntries(new FormData(add).entries())
    const body = { name: form.name, dir: form.dir }
    const fields = ['host', 'profile', 'command', 'stopCommand', 'readyLine', 'sayCommand', 'worldDir', 'hotBackup']
    for (const key of [...fields, 'hotBackupDone', 'chatLine']) if (form[key]) body[key] = form[key]
    if (lines(form.errorLines).length) body.errorLines = lines(form.errorLines)
    if (lines(form.args).length) body.args = lines(form.args)
    if (lines(form.configFiles).length) body.configFiles = lines(form.configFiles)
    try {
      const { server } = await api('POST', '/api/servers', body)
      toast(`Added '${server.name}' (${server.profile}${server.host ? ` on ${server.host}` : ''}).`, 'success')
      open(server.name)
    } catch (error) {
      fail(error)
    }
  })
})()
