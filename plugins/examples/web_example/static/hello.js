// Uses the page's shared helpers (window.sm): api() sends the CSRF header for cookie sessions.
document.getElementById('web-example-echo')?.addEventListener('click', async () => {
  const out = document.getElementById('web-example-out')
  try {
    const reply = await window.sm.api('POST', '/api/web_example/echo', { message: 'hello', count: 2 })
    out.textContent = `${reply.message} ${JSON.stringify(reply.data)}`
  } catch (error) {
    out.textContent = error.message
  }
})
