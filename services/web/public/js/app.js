// server-manager: what every page shares (no framework, nothing loaded from outside).
'use strict'
;(() => {
  const csrf = () => document.querySelector('meta[name="csrf-token"]')?.content || cookie('sm_csrf') || ''
  function cookie(name) {
    const found = document.cookie.split('; ').find((c) => c.startsWith(`${name}=`))
    return found ? decodeURIComponent(found.slice(name.length + 1)) : ''
  }

  /** Set once the user signs out: the page is on its way to /login, and no other navigation may overtake it. */
  let leaving = false

  /** A JSON call to the API; rejects with the server's message (error.code, error.status). */
  async function api(method, url, body) {
    const init = { method, credentials: 'same-origin', headers: { Accept: 'application/json', 'X-CSRF-Token': csrf() } }
    if (body !== undefined) {
      init.headers['Content-Type'] = 'application/json'
      init.body = JSON.stringify(body)
    }
    const res = await fetch(url, init)
    let data = {}
    try {
      data = await res.json()
    } catch {}
    // A call that a sign-out overtook (a chart's load, say) answers 401: the sign-out's own
    // navigation to /login is under way, and a second one would abort it.
    if (res.status === 401 && !leaving && !url.startsWith('/auth/')) {
      location.href = `/login?next=${encodeURIComponent(location.pathname + location.search)}`
    }
    if (!res.ok) {
      const error = new Error(data.message || data.detail || `${res.status} ${res.statusText}`)
      Object.assign(error, { status: res.status, code: data.code, data })
      throw error
    }
    return data
  }

  // How long a toast stays by itself (not while pointed at): an error longer, to be read or copied.
  const TOAST_MS = { success: 5000, info: 5000, warning: 10000, error: 20000 }
  // Toasts shown at once: an older one goes for a new one, so they never pile up over the page.
  const MAX_TOASTS = 3
  const toasts = document.getElementById('toasts')
  // The page can always scroll its last controls clear of the toasts: it ends with room as tall as they are.
  new ResizeObserver(() =>
    document.documentElement.style.setProperty('--sm-toasts-height', `${toasts.offsetHeight}px`),
  ).observe(toasts)

  /** A short message in the bottom corner, with a close button; it goes by itself (not while pointed at). */
  function toast(message, kind = 'info') {
    const key = `${kind}:${message}`
    // The same message again (a retry that fails again) replaces the one shown.
    for (const shown of [...toasts.children]) if (shown.dataset.key === key) shown.remove()
    const item = el(
      'div',
      { class: `toast toast-${kind}`, role: kind === 'error' ? 'alert' : 'status', 'data-key': key },
      el('span', { class: 'toast-text' }, message),
      el('button', { type: 'button', class: 'toast-close', 'aria-label': 'Close', onclick: () => item.remove() }, '×'),
    )
    toasts.append(item)
    while (toasts.children.length > MAX_TOASTS) toasts.firstElementChild.remove()
    const ms = TOAST_MS[kind]
    if (ms) {
      let timer = setTimeout(() => item.remove(), ms)
      item.addEventListener('mouseenter', () => clearTimeout(timer))
      item.addEventListener('mouseleave', () => {
        timer = setTimeout(() => item.remove(), ms)
      })
    }
    return item
  }
  const fail = (error) => toast(error.code ? `${error.message} (${error.code})` : error.message, 'error')

  /** Builds an element: el('a', {href: '/x', class: 'y'}, 'text', child). Text is never parsed as HTML. */
  function el(tag, attrs = {}, ...children) {
    const node = document.createElement(tag)
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === undefined || value === null || value === false) continue
      if (key.startsWith('on') && typeof value === 'function') node.addEventListener(key.slice(2), value)
      else if (key === 'dataset') Object.assign(node.dataset, value)
      else node.setAttribute(key, value === true ? '' : String(value))
    }
    for (const child of children.flat()) {
      if (child === undefined || child === null || child === false) continue
      node.append(child instanceof Node ? child : document.createTextNode(String(child)))
    }
    return node
  }

  /**
   * The page's one live stream, whoever on the page follows what: browsers open at most six
   * connections to a host, and a stream each for the console, the charts and the players would
   * let two open tabs starve a third. It is opened once the page's scripts have asked for their
   * topics (a task later), and again only when a topic nobody asked for before comes.
   */
  const hub = { topics: new Set(), followers: new Set(), source: undefined, pending: false }
  function connect() {
    hub.pending = false
    hub.source?.close()
    const source = new EventSource(`/api/events/stream?topics=${encodeURIComponent([...hub.topics].join(','))}`)
    hub.source = source
    source.onmessage = (event) => {
      let message
      try {
        message = JSON.parse(event.data)
      } catch (error) {
        return console.error(error)
      }
      for (const follower of hub.followers)
        if (follower.topics.has(message.topic))
          try {
            follower.onMessage(message)
          } catch (error) {
            console.error(error)
          }
    }
    source.onopen = () => {
      for (const follower of hub.followers) follower.onopen?.()
    }
  }

  /**
   * Follows topics on the page's live stream; answers a handle whose `onopen` runs each time the
   * stream (re)opens (load what may have come before) and whose `close()` stops following.
   */
  function stream(topics, onMessage) {
    const follower = { topics: new Set(topics), onMessage, onopen: undefined }
    hub.followers.add(follower)
    const fresh = topics.filter((topic) => !hub.topics.has(topic))
    for (const topic of fresh) hub.topics.add(topic)
    if (fresh.length > 0 && !hub.pending) {
      hub.pending = true
      // Once every script of the page has asked (they all run before DOMContentLoaded).
      if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', connect, { once: true })
      else queueMicrotask(connect)
    } else if (hub.source?.readyState === EventSource.OPEN) queueMicrotask(() => follower.onopen?.())
    return {
      set onopen(fn) {
        follower.onopen = fn
      },
      close() {
        hub.followers.delete(follower)
      },
    }
  }

  /**
   * What a page asks for beside a live stream that brings the same changes (on open, to catch up).
   * An answer can come after newer news, and is then older than what the page shows: it is dropped
   * once the answer to a later ask was taken, and an entry of it is stale once a live change to that
   * entry came after the ask (the stream brings every change after that one too).
   * `live(key)` notes a live change; `ask(load, take)` calls `take(answer, fresh)` with the answer
   * of `load()` unless a later one was taken, `fresh(key)` saying whether its entry still holds.
   */
  function catchUp() {
    const heard = new Map()
    let asks = 0
    let taken = 0
    return {
      live(key) {
        heard.set(key, (heard.get(key) ?? 0) + 1)
      },
      async ask(load, take) {
        const ask = ++asks
        const before = new Map(heard)
        const answer = await load()
        if (ask < taken) return
        taken = ask
        take(answer, (key) => heard.get(key) === before.get(key))
      },
    }
  }

  /** Follows a task to its end: progress as it comes, then resolves with the task (rejects if it failed). */
  function followTask(id, onProgress = () => {}) {
    return new Promise((resolve, reject) => {
      let settled = false
      const done = (task) => {
        if (settled) return
        settled = true
        source.close()
        if (task.state === 'succeeded') resolve(task)
        else
          reject(
            Object.assign(new Error(task.error?.message || `the task ended ${task.state}`), { code: task.error?.code }),
          )
      }
      // The page's 'tasks' topic, this task's messages: a topic per task would reopen the stream.
      const asked = catchUp()
      const source = stream(['tasks'], (message) => {
        if (message.data?.id !== id || settled) return
        asked.live(id)
        if (message.type === 'tasks:progress') onProgress(message.data)
        if (message.type === 'tasks:finished') api('GET', `/api/tasks/${id}`).then((r) => done(r.task), reject)
      })
      // It may have finished before the stream opened; progress older than the stream's is not shown.
      source.onopen = () =>
        asked
          .ask(
            () => api('GET', `/api/tasks/${id}`),
            (r, fresh) => {
              if (['succeeded', 'failed', 'cancelled'].includes(r.task.state)) done(r.task)
              else if (fresh(id) && !settled) onProgress(r.task)
            },
          )
          .catch(() => {})
    })
  }

  // Which power action makes sense in which status (the others are refused by the server anyway).
  const POWER = {
    start: ['stopped', 'crashed', 'error'],
    stop: ['starting', 'running'],
    restart: ['starting', 'running'],
    kill: ['starting', 'running', 'stopping'],
  }

  /**
   * A server's power buttons (`data-power="start"` and so on, inside `scope`) as its status allows:
   * Start only when it is down, Stop and Restart only while it is up. The status is kept on
   * `scope` (`data-power-status`), so a button that finished its work is set by the status then.
   */
  function power(scope, status) {
    if (!scope) return
    if (status) scope.dataset.powerStatus = status
    for (const button of scope.querySelectorAll('[data-power]'))
      button.disabled =
        button.getAttribute('aria-busy') === 'true' ||
        !(POWER[button.dataset.power] || []).includes(scope.dataset.powerStatus)
  }

  /** Buttons with data-post="/api/…": POST, say what happened, follow a task to its end. */
  document.addEventListener('click', async (event) => {
    const button = event.target.closest('[data-post]')
    if (!button) return
    event.preventDefault()
    button.setAttribute('aria-busy', 'true')
    button.disabled = true
    try {
      const result = await api(
        'POST',
        button.dataset.post,
        button.dataset.body ? JSON.parse(button.dataset.body) : undefined,
      )
      // A task only began: its end is the success.
      toast(result.message || 'Done', result.task_id ? 'info' : 'success')
      // What the action made moot goes (the EULA notice once it is accepted).
      if (button.dataset.doneRemove) document.querySelector(button.dataset.doneRemove)?.remove()
      if (result.task_id) {
        const task = await followTask(result.task_id)
        toast(`${task.name}: done`, 'success')
      }
    } catch (error) {
      fail(error)
    } finally {
      button.removeAttribute('aria-busy')
      button.disabled = false
      if (button.dataset.power) power(button.closest('[data-power-status]'), undefined)
    }
  })

  document.addEventListener('click', async (event) => {
    if (event.target.closest('[data-logout]')) {
      leaving = true
      await api('POST', '/auth/logout').catch(() => {})
      location.href = '/login'
    }
    if (event.target.closest('[data-toggle-nav]')) document.body.classList.toggle('nav-open')
  })

  const formData = (form) => Object.fromEntries(new FormData(form).entries())
  const bytes = (n) =>
    n < 1024 ? `${n} B` : n < 1048576 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 1048576).toFixed(1)} MiB`
  const when = (iso) => (iso ? new Date(iso).toLocaleString() : '')

  /**
   * POSTs a multipart form with upload progress (fetch has none): `onProgress(percent)` while it
   * is sent, `onSent()` once it is all sent (the server is at work). Resolves with the JSON answer;
   * rejects as `api` does.
   */
  function upload(url, form, { onProgress = () => {}, onSent = () => {} } = {}) {
    return new Promise((resolve, reject) => {
      const request = new XMLHttpRequest()
      request.open('POST', url)
      request.setRequestHeader('Accept', 'application/json')
      request.setRequestHeader('X-CSRF-Token', csrf())
      request.upload.onprogress = (e) => e.lengthComputable && onProgress(Math.round((e.loaded / e.total) * 100))
      request.upload.onload = () => onSent()
      request.onload = () => {
        let data = {}
        try {
          data = JSON.parse(request.responseText)
        } catch {}
        if (request.status >= 200 && request.status < 300) return resolve(data)
        const error = new Error(data.message || `${request.status} ${request.statusText}`)
        reject(Object.assign(error, { status: request.status, code: data.code, data }))
      }
      request.onerror = () => reject(new Error('The upload was cut off: is the manager still running?'))
      request.send(form)
    })
  }

  /**
   * The panel's own question, in a modal <dialog> (the browser's confirm() and prompt() look
   * like another site's and cannot be styled or read on a phone): resolves with true or false,
   * or, with `input` ({ label, value }), the text typed (null when cancelled). Escape cancels.
   */
  function ask(question, { ok = 'OK', danger = false, input } = {}) {
    return new Promise((resolve) => {
      const field =
        input === undefined
          ? undefined
          : el('input', {
              name: 'answer',
              value: input.value ?? '',
              'aria-label': input.label ?? question,
              required: true,
            })
      const cancel = el('button', { type: 'button', class: 'secondary' }, 'Cancel')
      const yes = el('button', { type: 'submit', class: danger ? 'contrast' : undefined }, ok)
      const form = el('form', { method: 'dialog' }, el('p', {}, question), field, el('footer', {}, cancel, yes))
      const dialog = el('dialog', { class: 'ask', 'aria-label': question }, el('article', {}, form))
      let answer = input === undefined ? false : null
      cancel.addEventListener('click', () => dialog.close())
      form.addEventListener('submit', () => {
        answer = field ? field.value : true
      })
      dialog.addEventListener('close', () => {
        dialog.remove()
        resolve(answer)
      })
      document.body.append(dialog)
      dialog.showModal()
      if (field) field.select()
      else yes.focus()
    })
  }

  /**
   * A `server_stopping` message (the dashboard's and the server page's): a stop was asked and its
   * players are being warned, so `show('stopping')` until its hooks are over; then the status as
   * it is (still running when a plugin refused the stop), read through `asked` (sm.catchUp).
   */
  function followStopping({ serverName, over }, asked, show) {
    asked.live(serverName)
    if (!over) return show('stopping')
    asked
      .ask(
        () => api('GET', `/api/servers/${encodeURIComponent(serverName)}/status`),
        (r, fresh) => fresh(serverName) && show(r.run.status, r.run.pid ?? undefined),
      )
      .catch(fail)
  }

  window.sm = {
    api,
    toast,
    fail,
    el,
    stream,
    catchUp,
    followTask,
    formData,
    bytes,
    when,
    csrf,
    upload,
    power,
    ask,
    followStopping,
  }
})()
