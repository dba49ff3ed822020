'use strict'
;(() => {
  const { api, toast, fail, el, stream, catchUp, followTask, formData, bytes, when, power, ask, followStopping } =
    window.sm
  const root = document.getElementById('server-page')
  const name = root.dataset.server
  // The controls this user may use here (views/server.ejs draws only those): each as its route's guard judges it.
  const can = JSON.parse(root.dataset.can || '{}')
  const base = `/api/servers/${encodeURIComponent(name)}`
  const consoleBox = document.getElementById('console')
  const MAX_LINES = 1000

  const UP = ['starting', 'running']
  let status = root.querySelector('[data-status]').textContent
  /** The game's PID while it is up, nothing once it is not (a new run has another: asked for when it begins). */
  const setPid = (pid) => {
    root.querySelector('[data-pid]').textContent = pid ?? ''
    root.querySelector('[data-pid-label]').hidden = pid === undefined
  }
  /** What else the status allows (the server refuses the rest anyway): Send while it is up, Remove while it is down. */
  const allow = (now) => {
    const send = document.querySelector('#send-form button[type="submit"]')
    if (send) {
      send.disabled = !UP.includes(now)
      send.title = send.disabled ? `${name} is ${now}: start it to send commands` : ''
    }
    for (const remove of document.querySelectorAll('#server-remove [data-remove]')) {
      remove.disabled = [...UP, 'stopping'].includes(now)
      remove.title = remove.disabled ? `${name} is ${now}: stop it first` : ''
    }
  }
  const setStatus = (now, pid) => {
    const was = status
    status = now
    const badge = root.querySelector('[data-status]')
    badge.textContent = now
    badge.className = `status status-${now}`
    power(root.querySelector('.power'), now)
    allow(now)
    if (!UP.includes(now)) setPid(undefined)
    else if (pid !== undefined) setPid(pid)
    else if (!UP.includes(was) || now === 'running')
      api('GET', `${base}/status`).then((r) => UP.includes(status) && setPid(r.run.pid), fail)
  }
  power(root.querySelector('.power'), status)
  allow(status)
  const appendLines = (lines, kind = 'line') => {
    if (!consoleBox) return
    const atBottom = consoleBox.scrollTop + consoleBox.clientHeight >= consoleBox.scrollHeight - 8
    for (const line of lines) consoleBox.append(el('div', { class: kind }, line))
    while (consoleBox.childElementCount > MAX_LINES) consoleBox.firstElementChild.remove()
    if (atBottom) consoleBox.scrollTop = consoleBox.scrollHeight
  }

  const topics = ['server_status']
  if (can.console) topics.push(`server_log:${name}`)
  if (can.backups) topics.push(`servers:backup_progress:${name}`)
  const progress = document.getElementById('backup-progress')
  const progressText = document.getElementById('backup-status')
  const asked = catchUp()
  let asking = 0
  const source = stream(topics, (message) => {
    if (message.type === 'server_status' && message.data.serverName === name) {
      asked.live(name)
      setStatus(message.data.status)
    }
    if (message.type === 'server_stopping' && message.data.serverName === name)
      followStopping(message.data, asked, setStatus)
    if (message.type === 'server_log') appendLines([message.data])
    if (message.type === 'servers:backup_progress') {
      progress.hidden = false
      progress.value = message.data.percent
      progressText.textContent = `${message.data.operation}: ${message.data.percent}% (${message.data.files}/${message.data.totalFiles} files)`
    }
  })
  source.onopen = () => {
    // The status as it is now: it may have changed before the stream opened, or while it reconnected.
    // The badge is busy while it is asked (the answer may be dropped: sm.catchUp).
    const badge = root.querySelector('[data-status]')
    asking++
    badge.setAttribute('aria-busy', 'true')
    asked
      .ask(
        () => api('GET', `${base}/status`),
        (r, fresh) => fresh(name) && setStatus(r.run.status, r.run.pid ?? undefined),
      )
      .catch(fail)
      .finally(() => --asking || badge.removeAttribute('aria-busy'))
    // Load the console's recent lines once the live stream is open, so no line falls between.
    if (!can.console || consoleBox.dataset.loaded) return
    consoleBox.dataset.loaded = '1'
    api('GET', `${base}/logs?lines=200`).then((r) => {
      consoleBox.replaceChildren()
      appendLines(r.lines)
    }, fail)
  }
  const sendForm = document.getElementById('send-form')
  // Drawn only for those who may use it.
  const consoleSection = () => {
    const reply = document.getElementById('reply')
    // What was sent, for ↑ and ↓ in the command box (this tab's, kept across reloads): the last 50,
    // a repeat of the one before not kept twice.
    const historyKey = `sm-console-history:${name}`
    const history = (() => {
      try {
        return JSON.parse(sessionStorage.getItem(historyKey) || '[]')
      } catch {
        return []
      }
    })()
    let recalled = history.length
    let draft = ''
    const commandBox = sendForm.elements.command
    commandBox.addEventListener('keydown', (event) => {
      if (event.key !== 'ArrowUp' && event.key !== 'ArrowDown') return
      if (recalled === history.length) draft = commandBox.value
      const next = event.key === 'ArrowUp' ? Math.max(0, recalled - 1) : Math.min(history.length, recalled + 1)
      if (next === recalled) return
      event.preventDefault()
      recalled = next
      commandBox.value = recalled === history.length ? draft : history[recalled]
    })
    sendForm.addEventListener('submit', async (event) => {
      event.preventDefault()
      const { command } = formData(sendForm)
      // The console shows what was sent, where the game's answer follows.
      appendLines([`> ${command}`], 'line sent')
      if (history[history.length - 1] !== command) history.push(command)
      history.splice(0, history.length - 50)
      recalled = history.length
      draft = ''
      try {
        sessionStorage.setItem(historyKey, JSON.stringify(history))
      } catch {}
      const show = (lines) => {
        reply.hidden = !lines?.length
        reply.textContent = (lines || []).join('\n')
      }
      try {
        show((await api('POST', `${base}/command`, { command })).reply)
        // Cleared only if it still holds what was sent: the next command may be typed (and sent)
        // while this one's reply is on its way.
        if (sendForm.elements.command.value === command) sendForm.reset()
      } catch (error) {
        // A refused command (SM_ERR_SERVER_COMMAND_REFUSED) still has the game's answer.
        show(error.data?.reply)
        fail(error)
      }
    })
  }
  if (sendForm) consoleSection()

  const backupsBody = document.getElementById('backups')
  // Drawn only for those who may use it.
  const backupsSection = () => {
    async function loadBackups() {
      const { backups } = await api('GET', `${base}/backups`)
      backupsBody.replaceChildren(
        ...backups.map((b) =>
          el(
            'tr',
            {},
            el('td', {}, el('a', { href: `${base}/backups/${encodeURIComponent(b.file)}`, download: b.file }, b.file)),
            el('td', {}, b.kind),
            el('td', {}, bytes(b.bytes)),
            el('td', {}, when(b.createdAt)),
            el(
              'td',
              {},
              can.restore && b.kind === 'world'
                ? el('button', { class: 'small outline', onclick: () => restore(b.file) }, 'Restore')
                : '',
              can.restore
                ? el('button', { class: 'small outline secondary', onclick: () => removeBackup(b.file) }, 'Delete')
                : '',
            ),
          ),
        ),
      )
      if (backups.length === 0)
        backupsBody.append(el('tr', {}, el('td', { colspan: 5, class: 'muted' }, 'No backups yet.')))
    }
    async function runTask(request, label) {
      const started = await api('POST', request.url, request.body)
      progress.hidden = false
      progress.value = 0
      progressText.textContent = `${label}…`
      try {
        const task = await followTask(started.task_id, (p) => {
          if (typeof p.percent === 'number') progress.value = p.percent
          if (p.message) progressText.textContent = p.message
        })
        progress.value = 100
        progressText.textContent = `${label}: done`
        toast(`${label}: done`, 'success')
        // Done, with something to know (a server stopped for its backup, as its profile has no hot backup).
        if (task.result?.warning) toast(task.result.warning, 'warning')
        return task
      } catch (error) {
        // Never left saying it is under way: it failed, and says why (the toast too).
        progressText.textContent = `${label} failed: ${error.message}`
        throw error
      } finally {
        setTimeout(() => {
          progress.hidden = true
        }, 1500)
        loadBackups().catch(fail)
      }
    }
    document
      .getElementById('backup-now')
      .addEventListener('click', () =>
        runTask({ url: `${base}/backups`, body: { type: 'world' } }, 'Backup').catch(fail),
      )
    async function removeBackup(file) {
      if (!(await ask(`Delete the backup ${file} of ${name}? It cannot be undone.`, { ok: 'Delete', danger: true })))
        return
      try {
        const { deleted } = await api('DELETE', `${base}/backups/${encodeURIComponent(file)}`)
        toast(`Deleted ${deleted}.`, 'success')
      } catch (error) {
        fail(error)
      }
      loadBackups().catch(fail)
    }
    async function restore(file) {
      // Said before it is done: a running server is stopped for it (the CLI asks for --stop, its menu says so too).
      const question = ['starting', 'running', 'stopping'].includes(status)
        ? `${name} is ${status}: it will be stopped, its world replaced by ${file}, and started again. A safety backup of the world as it is now is taken first. Go on?`
        : `Put ${file} back as the world of ${name}? A safety backup of the world as it is now is taken first.`
      if (!(await ask(question, { ok: 'Restore' }))) return
      runTask({ url: `${base}/restore`, body: { file, stop: true } }, 'Restore').catch(fail)
    }
    loadBackups().catch(fail)
  }
  if (backupsBody) backupsSection()

  const propsBody = document.getElementById('properties')
  // Drawn only for those who may use it.
  const propertiesSection = () => {
    const saveProps = document.getElementById('save-properties')
    async function loadProperties() {
      const { properties } = await api('GET', `${base}/properties`)
      propsBody.replaceChildren(
        ...Object.entries(properties).map(([key, value]) =>
          el(
            'tr',
            {},
            el('th', { scope: 'row' }, key),
            el(
              'td',
              {},
              can.saveProperties
                ? el('input', { value, 'data-key': key, 'aria-label': key, oninput: () => (saveProps.hidden = false) })
                : value,
            ),
          ),
        ),
      )
      if (Object.keys(properties).length === 0)
        propsBody.append(el('tr', {}, el('td', { class: 'muted' }, 'No server.properties.')))
    }
    saveProps?.addEventListener('click', async () => {
      const properties = Object.fromEntries(
        [...propsBody.querySelectorAll('input[data-key]')].map((i) => [i.dataset.key, i.value]),
      )
      try {
        const result = await api('PUT', `${base}/properties`, { properties })
        const n = Object.keys(result.changed || {}).length
        toast(
          n === 0
            ? 'Nothing changed.'
            : `${n} ${n === 1 ? 'property' : 'properties'} changed; restart the server to apply ${n === 1 ? 'it' : 'them'}.`,
          'success',
        )
        saveProps.hidden = true
      } catch (error) {
        fail(error)
      }
    })
    loadProperties().catch(fail)
  }
  if (propsBody) propertiesSection()

  const schedulesBody = document.getElementById('schedules')
  // Drawn only for those who may use it.
  const schedulesSection = () => {
    async function loadSchedules() {
      const { schedules } = await api('GET', `${base}/schedules`)
      schedulesBody.replaceChildren(
        ...schedules.map((s) =>
          el(
            'tr',
            {},
            el('td', {}, el('code', {}, s.cron), s.timezone ? ` (${s.timezone})` : ''),
            el('td', {}, s.action, s.command ? `: ${s.command}` : ''),
            el('td', {}, s.invalid ? `cannot run: ${s.invalid}` : when(s.nextRun)),
            el(
              'td',
              { class: 'actions' },
              can.addSchedule ? el('button', { class: 'small outline', onclick: () => editSchedule(s) }, 'Edit') : '',
              can.removeSchedule
                ? el('button', { class: 'small outline secondary', onclick: () => removeSchedule(s.id) }, 'Remove')
                : '',
            ),
          ),
        ),
      )
      if (schedules.length === 0)
        schedulesBody.append(el('tr', {}, el('td', { colspan: 4, class: 'muted' }, 'No schedules.')))
    }
    async function removeSchedule(id) {
      await api('DELETE', `${base}/schedules/${encodeURIComponent(id)}`).then(loadSchedules, fail)
    }
    const scheduleForm = document.getElementById('schedule-form')
    const cancel = document.getElementById('schedule-cancel')
    /** The schedule the form changes (Edit), or none: the form adds one. */
    let editing
    const adding = () => {
      editing = undefined
      scheduleForm.reset()
      scheduleForm.querySelector('button[type="submit"]').textContent = 'Add'
      cancel.hidden = true
    }
    function editSchedule(s) {
      editing = s.id
      scheduleForm.elements.cron.value = s.cron
      scheduleForm.elements.action.value = s.action
      scheduleForm.elements.command.value = s.command ?? ''
      scheduleForm.querySelector('button[type="submit"]').textContent = 'Save'
      cancel.hidden = false
      scheduleForm.elements.cron.focus()
    }
    cancel?.addEventListener('click', adding)
    scheduleForm?.addEventListener('submit', async (event) => {
      event.preventDefault()
      const data = formData(scheduleForm)
      if (!data.command) delete data.command
      try {
        if (editing) await api('PUT', `${base}/schedules/${encodeURIComponent(editing)}`, data)
        else await api('POST', `${base}/schedules`, data)
        adding()
        await loadSchedules()
      } catch (error) {
        fail(error)
      }
    })
    loadSchedules().catch(fail)
  }
  if (schedulesBody) schedulesSection()
})()
