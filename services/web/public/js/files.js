// The file manager page: a server's directory, its text files in an editor, uploads, downloads.
'use strict'
;(() => {
  const { api, toast, fail, el, bytes, when, upload, ask } = window.sm
  const root = document.getElementById('files-page')
  const name = root.dataset.server
  const base = `/api/servers/${encodeURIComponent(name)}/files`
  const body = document.getElementById('entries')
  const crumbs = document.getElementById('crumbs')
  const editor = document.getElementById('editor')
  const editorPath = document.getElementById('editor-path')
  const editorText = document.getElementById('editor-text')
  const editorError = document.getElementById('editor-error')
  const editorDownload = document.getElementById('editor-download')
  const progress = document.getElementById('upload-progress')
  const runningNote = document.getElementById('running-note')
  const join = (folder, entry) => (folder ? `${folder}/${entry}` : entry)
  const query = (path) => `path=${encodeURIComponent(path)}`
  const downloadUrl = (path) => `${base}/download?${query(path)}`
  /** The folder shown (kept in the address, so a reload or Back shows it again), and the file open in the editor. */
  let folder = new URLSearchParams(location.search).get('path') || ''
  let open

  /** A change's answer: its message, and the restart note while the server runs. */
  const said = (result) => {
    toast(result.message, 'success')
    if (result.warning) toast(result.warning, 'error')
    runningNote.hidden = !result.running
  }

  function drawCrumbs() {
    const parts = folder ? folder.split('/') : []
    const link = (label, path, current) =>
      el(
        'li',
        {},
        current
          ? el('span', { 'aria-current': 'page' }, label)
          : el('a', { href: `?${query(path)}`, onclick: go(path) }, label),
      )
    crumbs.replaceChildren(
      link(name, '', parts.length === 0),
      ...parts.map((part, i) => link(part, parts.slice(0, i + 1).join('/'), i === parts.length - 1)),
    )
  }
  const go = (path) => (event) => {
    event.preventDefault()
    show(path, true).catch(fail)
  }

  async function show(path, push = false) {
    const listing = await api('GET', `${base}?${query(path)}`)
    folder = listing.path
    if (push) history.pushState({ path: folder }, '', `?${query(folder)}`)
    drawCrumbs()
    body.replaceChildren(...listing.entries.map(row))
    if (listing.entries.length === 0)
      body.append(el('tr', {}, el('td', { colspan: 4, class: 'muted' }, 'This folder is empty.')))
    if (listing.truncated)
      toast('This folder holds more entries than a listing shows; the first ones by name are listed.')
  }

  function row(entry) {
    const path = join(folder, entry.name)
    const isFolder = entry.type === 'directory' || entry.link === 'directory'
    const isFile = entry.type === 'file' || entry.link === 'file'
    let label = el('span', {}, entry.name)
    if (isFolder) label = el('a', { href: `?${query(path)}`, onclick: go(path) }, `${entry.name}/`)
    else if (isFile) label = el('button', { type: 'button', onclick: () => edit(path).catch(fail) }, entry.name)
    const note =
      entry.type === 'link'
        ? el(
            'small',
            { class: 'muted' },
            entry.link === 'outside'
              ? ' (link out of the server directory: not followed)'
              : entry.link === 'missing'
                ? ' (link to nothing)'
                : ' (link)',
          )
        : undefined
    return el(
      'tr',
      { 'data-name': entry.name },
      el('td', { class: 'entry-name' }, label, note),
      el('td', {}, isFolder ? '' : bytes(entry.size)),
      el('td', {}, when(entry.mtime)),
      el(
        'td',
        { class: 'actions' },
        isFile
          ? el('a', { href: downloadUrl(path), download: entry.name, class: 'small', role: 'button' }, 'Download')
          : undefined,
        ' ',
        el('button', { class: 'small secondary', type: 'button', onclick: () => rename(path).catch(fail) }, 'Rename'),
        ' ',
        el(
          'button',
          { class: 'small contrast', type: 'button', onclick: () => remove(path, entry).catch(fail) },
          'Delete',
        ),
      ),
    )
  }

  async function edit(path) {
    try {
      const file = await api('GET', `${base}/text?${query(path)}`)
      open = { path: file.path, hash: file.hash }
      editorText.value = file.text
    } catch (error) {
      // Binary or too large: the message says to download it; the link is right there.
      if (error.code !== 'SM_ERR_FILE_NOT_TEXT') throw error
      open = undefined
      editorText.value = ''
      editorError.textContent = error.message
    }
    editor.hidden = false
    editorPath.textContent = path
    editorDownload.href = downloadUrl(path)
    editorDownload.setAttribute('download', path.split('/').pop())
    editorText.disabled = !open
    document.getElementById('editor-save').disabled = !open
    editorError.hidden = Boolean(open)
    editor.scrollIntoView({ block: 'start' })
  }

  async function save() {
    if (!open) return
    try {
      const result = await api('PUT', `${base}/text`, {
        path: open.path,
        text: editorText.value,
        expected_hash: open.hash,
      })
      open.hash = result.hash
      editorError.hidden = true
      said(result)
      await show(folder)
    } catch (error) {
      // A change meanwhile is said where the text is, and the edit stays in the box to be copied.
      editorError.hidden = false
      editorError.textContent = error.code ? `${error.message} (${error.code})` : error.message
    }
  }

  async function rename(path) {
    const to = await ask(`New name for ${path} (a path moves it inside the server directory)`, {
      ok: 'Rename',
      input: { label: 'New name', value: path.split('/').pop() },
    })
    if (!to || to === path.split('/').pop()) return
    said(await api('POST', `${base}/rename`, { path, to: to.includes('/') ? to : join(folder, to) }))
    await show(folder)
  }

  async function remove(path, entry) {
    const what =
      entry.type === 'directory'
        ? `the folder ${path} and everything in it`
        : entry.type === 'link'
          ? `the link ${path} (not what it points to)`
          : path
    if (!(await ask(`Delete ${what}? This cannot be undone.`, { ok: 'Delete', danger: true }))) return
    said(await api('DELETE', `${base}?${query(path)}`))
    if (open && (open.path === path || open.path.startsWith(`${path}/`))) close()
    await show(folder)
  }

  async function makeFolder() {
    const folderName = await ask('Name of the new folder', { ok: 'Create', input: { label: 'Folder name' } })
    if (!folderName) return
    said(await api('POST', `${base}/mkdir`, { path: join(folder, folderName) }))
    await show(folder)
  }

  /** One upload, streamed by the browser with its progress; resolves with the answer, rejects with the coded error. */
  function send(file, path, overwrite) {
    const form = new FormData()
    form.append('path', path)
    if (overwrite) form.append('overwrite', 'true')
    form.append('file', file)
    return upload(`${base}/upload`, form, {
      onProgress: (percent) => {
        progress.value = percent
      },
    })
  }

  async function uploadFiles(files) {
    progress.hidden = false
    try {
      for (const file of files) {
        const path = join(folder, file.name)
        progress.value = 0
        try {
          said(await send(file, path, false))
        } catch (error) {
          if (
            error.code !== 'SM_ERR_FILE_EXISTS' ||
            !(await ask(`${path} exists. Replace it?`, { ok: 'Replace', danger: true }))
          )
            throw error
          said(await send(file, path, true))
        }
      }
    } finally {
      progress.hidden = true
      await show(folder)
    }
  }

  function close() {
    editor.hidden = true
    open = undefined
  }

  document.getElementById('editor-save').addEventListener('click', save)
  document.getElementById('editor-close').addEventListener('click', close)
  document.getElementById('new-folder').addEventListener('click', () => makeFolder().catch(fail))
  const input = document.getElementById('upload-input')
  input.addEventListener('change', () => {
    const files = [...input.files]
    input.value = ''
    uploadFiles(files).catch(fail)
  })
  window.addEventListener('popstate', () => show(new URLSearchParams(location.search).get('path') || '').catch(fail))
  show(folder).catch(fail)
})()
