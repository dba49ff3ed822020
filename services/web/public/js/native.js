// The native plugin page renderer: draws a plugin's JSON component tree (decisions §5, the
// original's DynamicPage), runs its actions, and feeds live components from the event stream.
'use strict'
;(() => {
  const { api, toast, fail, el, stream } = window.sm
  const host = document.getElementById('native-page')
  const url = host.dataset.url
  const KNOWN_TOPIC = /^(server_status|tasks|task:[\w-]+|(server_log|servers:backup_progress):[^:\s]+|event:[\w*:]+)$/
  // Icons as inline SVG paths on a 24 px grid, stroked in the text's colour (shapes after Lucide's,
  // ISC): a text symbol would show as a missing-glyph box where the page's font lacks it.
  const CIRCLE = 'M22 12a10 10 0 1 1-20 0 10 10 0 0 1 20 0z'
  const ICONS = {
    Activity: 'M22 12h-4l-3 9L9 3l-3 9H2',
    AlertCircle: `${CIRCLE}M12 8v4M12 16h.01`,
    CheckCircle2: `${CIRCLE}M9 12l2 2 4-4`,
    Info: `${CIRCLE}M12 16v-4M12 8h.01`,
    Terminal: 'm4 17 6-6-6-6M12 19h8',
    Save: 'M19 21H5a2 2 0 0 1-2-2V5a2 2 0 0 1 2-2h11l5 5v11a2 2 0 0 1-2 2zM17 21v-8H7v8M7 3v5h8',
    Trash2: 'M3 6h18M19 6v14a2 2 0 0 1-2 2H7a2 2 0 0 1-2-2V6M8 6V4a2 2 0 0 1 2-2h4a2 2 0 0 1 2 2v2M10 11v6M14 11v6',
    Plus: 'M12 5v14M5 12h14',
    X: 'M18 6 6 18M6 6l12 12',
    Upload: 'M21 15v4a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2v-4M17 8l-5-5-5 5M12 3v12',
    Download: 'M21 15v4a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2v-4M7 10l5 5 5-5M12 15V3',
    ChevronDown: 'm6 9 6 6 6-6',
    ChevronUp: 'm18 15-6-6-6 6',
    Copy: 'M10 8h10a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H10a2 2 0 0 1-2-2V10a2 2 0 0 1 2-2zM4 16a2 2 0 0 1-2-2V4a2 2 0 0 1 2-2h10a2 2 0 0 1 2 2',
    ExternalLink: 'M15 3h6v6M10 14 21 3M18 13v6a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2V8a2 2 0 0 1 2-2h6',
    Play: 'M6 3l14 9-14 9V3z',
    Square: 'M5 3h14a2 2 0 0 1 2 2v14a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2V5a2 2 0 0 1 2-2z',
    RotateCcw: 'M3 12a9 9 0 1 0 9-9 9.75 9.75 0 0 0-6.74 2.74L3 8M3 3v5h5',
  }
  const SVG = 'http://www.w3.org/2000/svg'
  /** The icon `name` (else `fallback`, else nothing) as an inline SVG, 1em square; hidden from screen readers. */
  function icon(name, fallback) {
    const d = ICONS[name] || ICONS[fallback]
    if (!d) return ''
    const svg = document.createElementNS(SVG, 'svg')
    for (const [key, value] of Object.entries({
      class: 'icon-svg',
      viewBox: '0 0 24 24',
      fill: 'none',
      stroke: 'currentColor',
      'stroke-width': '2',
      'stroke-linecap': 'round',
      'stroke-linejoin': 'round',
      'aria-hidden': 'true',
      'data-icon': ICONS[name] ? name : fallback,
    }))
      svg.setAttribute(key, value)
    const path = document.createElementNS(SVG, 'path')
    path.setAttribute('d', d)
    svg.append(path)
    return svg
  }
  let form = {}
  let source
  let listeners = []
  let server = localStorage.getItem('sm.server') || ''
  const params = new URLSearchParams(location.search)

  if (!url.startsWith('/') || url.startsWith('//')) {
    host.replaceChildren(
      el('article', { class: 'error-text' }, 'Error: the page address must be a path on this server.'),
    )
    return
  }

  const str = (v, d = '') => (v === undefined || v === null ? d : String(v))
  const dig = (value, path) => (path ? path.split('.').reduce((v, k) => (v == null ? undefined : v[k]), value) : value)
  const topicFor = (topic) => str(topic).replaceAll('{server}', server)
  const on = (topic, fn) => listeners.push({ topic: topicFor(topic), fn })

  async function load() {
    source?.close()
    listeners = []
    form = {}
    const query = new URLSearchParams(params)
    query.delete('url')
    if (server && !query.has('server')) query.set('server', server)
    const target = `${url}${url.includes('?') ? '&' : '?'}${query}`
    let page
    try {
      page = await api('GET', target)
    } catch (error) {
      host.replaceChildren(el('article', { class: 'error-text', role: 'alert' }, `Error: ${error.message}`))
      return
    }
    if (page === null || typeof page !== 'object') {
      host.replaceChildren(el('article', { class: 'error-text' }, 'Invalid page definition.'))
      return
    }
    const nodes = Array.isArray(page) ? page : [page]
    host.replaceChildren(await serverPicker(), ...nodes.map(render))
    const topics = new Set([...(page.websocketSubscriptions || []).map(topicFor), ...listeners.map((l) => l.topic)])
    const wanted = [...topics].filter((t) => KNOWN_TOPIC.test(t) && !t.includes('{'))
    for (const t of topics)
      if (!wanted.includes(t)) console.warn(`native page: the topic '${t}' is not one this server streams`)
    if (wanted.length > 0)
      source = stream(wanted, (message) => {
        for (const l of listeners) if (l.topic === message.topic) l.fn(message)
      })
  }

  let servers
  async function serverPicker() {
    servers ??= await api('GET', '/api/servers').then(
      (r) => r.servers.map((s) => s.name),
      () => [],
    )
    if (servers.length === 0) return ''
    if (!servers.includes(server)) server = servers[0]
    const select = el(
      'select',
      {
        'aria-label': 'Server',
        onchange: (e) => {
          server = e.target.value
          localStorage.setItem('sm.server', server)
          load()
        },
      },
      ...servers.map((s) => el('option', { selected: s === server }, s)),
    )
    return el('div', { class: 'native-server' }, el('label', {}, 'Server ', select))
  }

  async function act(action, extra) {
    if (!action || typeof action !== 'object') return
    try {
      switch (action.type) {
        case 'api_call': {
          let body = { ...(action.payload || {}) }
          if (action.includeFormState) body = { ...body, ...form }
          if (extra !== undefined) body.value = extra
          const hasFile = Object.values(body).some((v) => v instanceof File)
          let result
          if (hasFile) {
            const data = new FormData()
            for (const [k, v] of Object.entries(body))
              data.append(k, v instanceof File ? v : typeof v === 'object' ? JSON.stringify(v) : String(v))
            const res = await fetch(action.endpoint, {
              method: 'POST',
              body: data,
              credentials: 'same-origin',
              headers: { 'X-CSRF-Token': window.sm.csrf(), Accept: 'application/json' },
            })
            result = await res.json().catch(() => ({}))
          } else {
            result = await api('POST', action.endpoint, body).catch((error) => error.data || { message: error.message })
          }
          if (result && result.status === 'success') {
            toast(result.message || 'Action successful', 'success')
            if (action.closeModal) closeModals()
            if (action.refresh) await load()
          } else toast(result?.message || 'Action failed', 'error')
          break
        }
        case 'download_file': {
          const res = await fetch(action.endpoint, { credentials: 'same-origin' })
          if (!res.ok) throw new Error(`download failed: ${res.status}`)
          const blob = await res.blob()
          const link = el('a', { href: URL.createObjectURL(blob), download: action.filename || 'download' })
          document.body.append(link)
          link.click()
          link.remove()
          break
        }
        case 'navigate': {
          if (action.url) {
            location.href = `/plugin-page?url=${encodeURIComponent(action.url)}`
            return
          }
          const next = { ...(action.params || {}) }
          if (action.dynamicParam && extra !== undefined) next[action.dynamicParam] = extra
          for (const [k, v] of Object.entries(next)) params.set(k, String(v))
          history.replaceState(null, '', `/plugin-page?${params}`)
          await load()
          break
        }
        case 'open_modal':
          document.getElementById(`modal-${action.modalId}`)?.showModal()
          break
        case 'close_modal':
          closeModals()
          break
        default:
          toast(`Unknown action '${action.type}'`, 'error')
      }
    } catch (error) {
      fail(error)
    }
  }
  const closeModals = () => {
    for (const dialog of document.querySelectorAll('dialog[open]')) dialog.close()
  }

  const field = (props) => props.id || props.name
  const withClick = (node, props) => {
    if (props.onClickAction) {
      node.addEventListener('click', (e) => {
        e.preventDefault()
        act(props.onClickAction)
      })
      node.classList.add('clickable')
    }
    return node
  }

  const components = {
    Container: (p, kids) => el('div', { class: `native-container ${str(p.className)}` }, kids),
    Card: (p, kids) => el('article', { class: str(p.className) }, p.title ? el('header', {}, p.title) : '', kids),
    Row: (p, kids) => el('div', { class: `native-row ${str(p.className)}`, style: `gap:${str(p.gap, '10px')}` }, kids),
    Column: (p, kids) =>
      el(
        'div',
        { class: `native-column ${str(p.className)}`, style: `gap:${str(p.gap, '10px')};flex:${str(p.flex, '1')}` },
        kids,
      ),
    Divider: (p) => el('hr', { class: str(p.className) }),
    Text: (p, kids) =>
      el(['h1', 'h2', 'h3'].includes(p.variant) ? p.variant : 'p', { class: str(p.className) }, str(p.content), kids),
    Label: (p, kids) => el('label', { for: p.htmlFor }, str(p.content), kids),
    Badge: (p) => el('span', { class: `badge badge-${str(p.variant, 'primary')}` }, str(p.content)),
    CodeBlock: (p) => {
      const code = el('pre', {}, el('code', {}, str(p.content)))
      const copy = el(
        'button',
        {
          class: 'small outline secondary copy',
          onclick: () => navigator.clipboard?.writeText(str(p.content)).then(() => toast('Copied', 'success')),
        },
        icon('Copy'),
        ' Copy',
      )
      return el(
        'div',
        { class: 'codeblock' },
        el('div', { class: 'codeblock-head' }, el('span', {}, str(p.title)), copy),
        code,
      )
    },
    Button: (p) => {
      const variant = { secondary: 'secondary', danger: 'contrast' }[p.variant] || ''
      const button = el(
        'button',
        { class: variant, disabled: p.disabled === true },
        p.icon ? [icon(p.icon, 'Info'), ' '] : '',
        str(p.label, 'Button'),
      )
      return withClick(button, p)
    },
    Input: (p) => {
      const key = field(p)
      const value = str(p.value ?? p.defaultValue)
      if (key) form[key] = value
      const input = el('input', {
        type: str(p.type, 'text'),
        name: key,
        placeholder: p.placeholder,
        value,
        readonly: !key || p.readOnly === true,
        'aria-label': p.label || p.placeholder || key,
      })
      input.addEventListener('input', () => (form[key] = input.value))
      return p.label ? el('label', {}, p.label, input) : input
    },
    Select: (p) => {
      const key = field(p)
      const options = Array.isArray(p.options) ? p.options : []
      const value = str(p.value ?? p.defaultValue ?? options[0]?.value)
      if (key) form[key] = value
      const select = el(
        'select',
        { name: key, disabled: p.disabled === true, 'aria-label': p.label || key },
        ...options.map((o) =>
          el('option', { value: str(o.value), selected: str(o.value) === value }, str(o.label ?? o.value)),
        ),
      )
      select.addEventListener('change', () => {
        if (key) form[key] = select.value
        if (p.onChangeAction) act(p.onChangeAction, select.value)
      })
      return p.label ? el('label', {}, p.label, select) : select
    },
    Switch: (p) => toggle(p, true),
    Checkbox: (p) => toggle(p, false),
    FileUpload: (p) => {
      const key = field(p)
      const input = el('input', { type: 'file', name: key, accept: p.accept, 'aria-label': p.label || key })
      input.addEventListener('change', () => {
        if (key) form[key] = input.files[0]
      })
      return p.label ? el('label', {}, p.label, input) : input
    },
    FileDownload: (p) => {
      const button = el(
        'button',
        {
          class: p.variant === 'secondary' ? 'secondary' : '',
          style: p.style && typeof p.style === 'string' ? p.style : undefined,
        },
        icon('Download'),
        ' ',
        str(p.label, 'Download'),
      )
      button.addEventListener('click', () => act({ type: 'download_file', endpoint: p.endpoint, filename: p.filename }))
      return button
    },
    Image: (p) => el('img', { src: safeUrl(p.src), alt: str(p.alt), width: p.width, height: p.height }),
    Link: (p) =>
      withClick(
        el(
          'a',
          {
            href: safeUrl(p.href),
            target: str(p.target, '_self'),
            rel: p.target === '_blank' ? 'noopener noreferrer' : undefined,
          },
          p.icon && ICONS[p.icon] ? [icon(p.icon), ' '] : '',
          str(p.label ?? p.href),
          p.target === '_blank' ? [' ', icon('ExternalLink')] : '',
        ),
        p,
      ),
    iframe: (p) => {
      const src = str(p.src)
      if (!isLocal(src))
        return el('div', { class: 'blocked' }, 'Blocked unsafe iframe content (only pages of this server are shown).')
      return el('iframe', {
        src,
        title: str(p.title, 'embedded page'),
        style: `height:${str(p.height, '400px')};width:100%;border:0`,
        sandbox: 'allow-scripts allow-same-origin allow-forms allow-popups',
      })
    },
    Chart: (p) => chart(p),
    LogViewer: (p) => {
      const box = el('pre', {
        class: 'console',
        style: `height:${typeof p.height === 'number' ? `${p.height}px` : str(p.height, '200px')}`,
      })
      const add = (lines) => {
        for (const line of lines) box.append(el('div', { class: 'line' }, line))
        while (box.childElementCount > 1000) box.firstElementChild.remove()
        box.scrollTop = box.scrollHeight
      }
      const initial = Array.isArray(p.lines) ? p.lines.map(String) : []
      if (initial.length) add(initial)
      else box.append(el('div', { class: 'muted placeholder' }, 'Waiting for logs...'))
      if (p.socketTopic)
        on(p.socketTopic, (m) => {
          box.querySelector('.placeholder')?.remove()
          const lines = String(m.data ?? '').split('\n')
          if (lines.at(-1) === '') lines.pop()
          add(lines)
        })
      return box
    },
    StatCard: (p) => {
      const value = el('div', { class: 'stat-value' }, str(p.value))
      if (p.socketTopic) on(p.socketTopic, (m) => (value.textContent = str(dig(m.data, p.dataKey))))
      const trend = { up: '▲', down: '▼', neutral: '•' }[p.trend] || ''
      return el(
        'article',
        { class: 'stat-card' },
        el('div', { class: 'stat-label' }, p.icon ? [icon(p.icon, 'Info'), ' '] : '', str(p.label)),
        value,
        trend ? el('small', { class: `trend trend-${p.trend}` }, trend) : '',
      )
    },
    StatusIndicator: (p) => el('span', { class: `status status-${str(p.status, 'stopped')}` }, str(p.text ?? p.status)),
    Icon: (p) =>
      el(
        'span',
        { class: 'icon', style: `font-size:${Number(p.size) || 20}px`, title: str(p.name) },
        icon(p.name, 'Info'),
      ),
    Table: (p) => {
      const headers = Array.isArray(p.headers) ? p.headers : []
      const rows = Array.isArray(p.rows) ? p.rows : []
      return el(
        'div',
        { class: 'overflow-auto' },
        el(
          'table',
          { class: 'striped' },
          el('thead', {}, el('tr', {}, ...headers.map((h) => el('th', {}, str(h))))),
          el(
            'tbody',
            {},
            ...rows.map((r) => el('tr', {}, ...(Array.isArray(r) ? r : [r]).map((c) => el('td', {}, render(c))))),
          ),
        ),
      )
    },
    Accordion: (p, kids) => el('details', { open: p.defaultOpen === true }, el('summary', {}, str(p.title)), kids),
    Modal: (p, kids) =>
      el(
        'dialog',
        { id: `modal-${str(p.id)}` },
        el(
          'article',
          {},
          el(
            'header',
            {},
            el('button', { class: 'close-modal', 'aria-label': 'Close the dialog', rel: 'prev', onclick: closeModals }),
            el('strong', {}, str(p.title)),
          ),
          kids,
        ),
      ),
    Tabs: (p, _kids, node) => {
      const tabs = (node.children || []).filter((c) => c && c.type === 'Tab')
      const ids = tabs.map((t, i) => str(t.props?.id ?? i))
      let active = str(p.activeTab ?? ids[0])
      const panels = tabs.map((t, i) =>
        el('div', { class: 'tab-panel', role: 'tabpanel', hidden: ids[i] !== active }, (t.children || []).map(render)),
      )
      const buttons = tabs.map((t, i) =>
        el(
          'button',
          {
            role: 'tab',
            class: ids[i] === active ? '' : 'outline secondary',
            'aria-selected': ids[i] === active ? 'true' : 'false',
            onclick: () => select(i),
          },
          str(t.props?.label, `Tab ${i + 1}`),
        ),
      )
      function select(i) {
        active = ids[i]
        panels.forEach((panel, j) => {
          panel.hidden = j !== i
        })
        buttons.forEach((b, j) => {
          b.className = j === i ? '' : 'outline secondary'
          b.setAttribute('aria-selected', j === i ? 'true' : 'false')
        })
        if (p.onTabChange) act(p.onTabChange, active)
      }
      return el('div', { class: 'tabs' }, el('div', { role: 'tablist', class: 'tab-list' }, buttons), panels)
    },
    Tab: (_p, kids) => el('div', {}, kids),
  }

  function toggle(p, isSwitch) {
    const key = field(p)
    const checked = Boolean(p.checked ?? p.defaultChecked)
    if (key) form[key] = checked
    const input = el('input', {
      type: 'checkbox',
      role: isSwitch ? 'switch' : undefined,
      name: key,
      checked,
      disabled: p.disabled === true,
    })
    input.addEventListener('change', () => {
      if (key) form[key] = input.checked
      if (p.onChangeAction) act(p.onChangeAction, input.checked)
    })
    return el('label', {}, input, ` ${str(p.label)}`)
  }

  function chart(p) {
    const width = 600
    const height = Number(p.height) || 300
    const data = Array.isArray(p.data) ? [...p.data] : []
    const series = Array.isArray(p.series) ? p.series : []
    const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg')
    svg.setAttribute('viewBox', `0 0 ${width} ${height}`)
    svg.setAttribute('class', 'chart')
    svg.setAttribute('role', 'img')
    const draw = () => {
      svg.replaceChildren()
      const values = data.flatMap((d) => series.map((s) => Number(d[s.dataKey]) || 0))
      const max = Math.max(1, ...values)
      const step = data.length > 1 ? (width - 40) / (data.length - 1) : 0
      const y = (v) => height - 20 - ((Number(v) || 0) / max) * (height - 40)
      series.forEach((s, si) => {
        const color = s.color || ['#2a7a4b', '#3a6fd8', '#d8823a'][si % 3]
        if (p.type === 'bar') {
          const w = Math.max(2, (width - 40) / Math.max(1, data.length) / series.length - 2)
          data.forEach((d, i) => {
            const rect = document.createElementNS(svg.namespaceURI, 'rect')
            const x = 20 + i * ((width - 40) / Math.max(1, data.length)) + si * w
            rect.setAttribute('x', x)
            rect.setAttribute('y', y(d[s.dataKey]))
            rect.setAttribute('width', w)
            rect.setAttribute('height', height - 20 - y(d[s.dataKey]))
            rect.setAttribute('fill', color)
            svg.append(rect)
          })
          return
        }
        const points = data.map((d, i) => `${20 + i * step},${y(d[s.dataKey])}`).join(' ')
        if (p.type === 'area' && data.length > 1) {
          const area = document.createElementNS(svg.namespaceURI, 'polygon')
          area.setAttribute('points', `20,${height - 20} ${points} ${20 + (data.length - 1) * step},${height - 20}`)
          area.setAttribute('fill', color)
          area.setAttribute('opacity', '0.25')
          svg.append(area)
        }
        const line = document.createElementNS(svg.namespaceURI, 'polyline')
        line.setAttribute('points', points)
        line.setAttribute('fill', 'none')
        line.setAttribute('stroke', color)
        line.setAttribute('stroke-width', '2')
        svg.append(line)
      })
    }
    draw()
    if (p.socketTopic)
      on(p.socketTopic, (m) => {
        data.push(m.data)
        while (data.length > 20) data.shift()
        draw()
      })
    const legend = el(
      'div',
      { class: 'chart-legend' },
      ...series.map((s) => el('span', { style: `color:${s.color || 'inherit'}` }, `■ ${str(s.name ?? s.dataKey)}`)),
    )
    return el('figure', { class: 'chart-box' }, svg, legend)
  }

  function isLocal(value) {
    return value.startsWith('/') && !value.startsWith('//')
  }
  function safeUrl(value) {
    const text = str(value)
    if (isLocal(text) || text.startsWith('#') || /^https?:\/\//i.test(text) || text.startsWith('data:image/'))
      return text
    return '#'
  }

  function render(node) {
    if (node === null || node === undefined) return ''
    if (typeof node === 'string' || typeof node === 'number') return document.createTextNode(String(node))
    if (typeof node !== 'object' || Array.isArray(node)) return ''
    const make = components[node.type]
    const props = node.props && typeof node.props === 'object' ? node.props : {}
    if (!make) return el('div', { class: 'unknown-component' }, `Unknown component: ${str(node.type)}`)
    const kids =
      node.type === 'Tabs' || node.type === 'Table'
        ? []
        : (Array.isArray(node.children) ? node.children : []).map(render)
    const out = make(props, kids, node)
    if (props.onClickAction && !['Button', 'Link'].includes(node.type) && out instanceof Element) withClick(out, props)
    return out
  }

  load()
})()
