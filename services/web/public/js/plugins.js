'use strict'
;(() => {
  const { api, toast, fail } = window.sm
  document.addEventListener('change', async (event) => {
    const toggle = event.target.closest('[data-plugin-toggle]')
    if (!toggle) return
    const name = toggle.dataset.pluginToggle
    toggle.disabled = true
    try {
      const result = await api('POST', `/api/plugins/${encodeURIComponent(name)}`, { enabled: toggle.checked })
      toast(result.message, 'success')
      location.reload()
    } catch (error) {
      toggle.checked = !toggle.checked
      fail(error)
    } finally {
      toggle.disabled = false
    }
  })
  document.getElementById('reload-plugins').addEventListener('click', async (event) => {
    event.target.setAttribute('aria-busy', 'true')
    try {
      const result = await api('PUT', '/api/plugins/reload')
      toast(
        `${result.message} ${result.details.loaded.length} loaded, ${result.details.failed.length} failed.`,
        'success',
      )
      location.reload()
    } catch (error) {
      fail(error)
    } finally {
      event.target.removeAttribute('aria-busy')
    }
  })
})()
