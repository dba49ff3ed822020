// server-manager: live resource figures and charts (uPlot, served from this manager). It mounts
// itself on what a page holds: [data-metrics-server="<name>"] (a server's page: figures, CPU and
// memory charts), [data-host-metrics] (the dashboard: the machine's) and the dashboard's rows
// (tr[data-server]: small figures under each name). Each loads its series from the API once the
// live stream is open, then adds every sample the stream brings.
'use strict'
;(() => {
  const { api, el, stream } = window.sm
  const HOUR = 3_600_000
  /** The statuses in which a game runs (and is sampled). */
  const ACTIVE = ['starting', 'running', 'stopping']
  const RANGES = [
    ['1 hour', HOUR],
    ['1 day', 24 * HOUR],
    ['30 days', 30 * 24 * HOUR],
  ]

  const percent = (v) => (v == null ? '–' : `${v < 10 ? v.toFixed(1) : Math.round(v)}%`)
  function bytes(n) {
    if (n == null) return '–'
    const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB']
    let i = 0
    while (n >= 1024 && i < units.length - 1) {
      n /= 1024
      i++
    }
    return `${n < 10 && i > 0 ? n.toFixed(1) : Math.round(n)} ${units[i]}`
  }
  function duration(s) {
    if (s == null) return '–'
    const d = Math.floor(s / 86400)
    const h = Math.floor((s % 86400) / 3600)
    const m = Math.floor((s % 3600) / 60)
    return d ? `${d}d ${h}h` : h ? `${h}h ${m}m` : `${m}m ${Math.floor(s % 60)}s`
  }
  const players = (p) => (p ? `${p.online}${p.max != null ? ` / ${p.max}` : ''}` : '–')
  const css = (name, fallback) => getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback

  /**
   * A time chart of one or more lines in `box`, over a window of `windowMs` up to now: `load`
   * replaces its points with a series' columns, `push` adds one point (dropping what left the
   * window). A gap in the samples (the server was down) is drawn as a gap.
   */
  function timeChart(box, { lines, format, windowMs }) {
    const muted = css('--pico-muted-color', '#888')
    const grid = css('--pico-muted-border-color', '#ddd')
    const data = [[], ...lines.map(() => [])]
    let step = 0
    const plot = new uPlot(
      {
        width: Math.max(box.clientWidth, 200),
        height: 150,
        series: [
          {},
          ...lines.map((line) => ({ label: line.label, stroke: line.color, width: 1.5, value: (_, v) => format(v) })),
        ],
        scales: {
          // The whole window, ending now: a few samples are drawn where they belong in it, not
          // stretched over an axis of years (uPlot's own range for one point).
          x: { time: true, range: () => [Date.now() / 1000 - windowMs / 1000, Date.now() / 1000] },
          y: { range: (_, _min, max) => [0, max > 0 ? max * 1.15 : 1] },
        },
        axes: [
          { stroke: muted, grid: { stroke: grid } },
          { stroke: muted, grid: { stroke: grid }, size: 64, values: (_, ticks) => ticks.map(format) },
        ],
        cursor: { drag: { x: false, y: false } },
      },
      data,
      box,
    )
    new ResizeObserver(() => plot.setSize({ width: Math.max(box.clientWidth, 200), height: 150 })).observe(box)
    const add = (t, values) => {
      const xs = data[0]
      const last = xs[xs.length - 1]
      if (last !== undefined && t <= last) return
      // Three times longer than the step before without a sample (the server was down): the line stops there.
      if (last !== undefined && step > 0 && t - last > 3 * step) {
        xs.push(last + step)
        for (let i = 1; i < data.length; i++) data[i].push(null)
      } else if (last !== undefined) step = t - last
      xs.push(t)
      for (const [i, v] of values.entries()) data[i + 1].push(v ?? null)
    }
    const trim = () => {
      const from = Date.now() / 1000 - windowMs / 1000
      let cut = 0
      while (cut < data[0].length && data[0][cut] < from) cut++
      if (cut > 0) for (const column of data) column.splice(0, cut)
    }
    return {
      load(columns, keys) {
        // Points the stream brought while the series was being read stay.
        const end = (columns.t[columns.t.length - 1] ?? 0) / 1000
        const later = data[0].flatMap((t, i) => (t > end ? [[t, data.slice(1).map((c) => c[i])]] : []))
        for (const column of data) column.length = 0
        step = 0
        for (const [i, t] of columns.t.entries())
          add(
            t / 1000,
            keys.map((key) => columns[key][i]),
          )
        for (const [t, values] of later) add(t, values)
        trim()
        plot.setData(data)
      },
      push(t, values) {
        add(t / 1000, values)
        trim()
        plot.setData(data)
      },
      set window(ms) {
        windowMs = ms
      },
    }
  }

  /** The page's series are drawn (a mark the dashboard benchmark reads): once, at the first load. */
  const loaded = () => {
    if (!performance.getEntriesByName('sm:metrics-loaded').length) performance.mark('sm:metrics-loaded')
  }

  const colours = () => [css('--pico-primary', '#0172ad'), css('--sm-green', '#2a7a4b')]

  /**
   * A panel (the article `root`) with its heading, a range choice, figures (`[key, label]`) and a
   * chart per `[key, label, format]`: `shown[key]` is each figure's element, `load` draws a
   * series' columns, `push` adds a sample; `reload(range)` is called with `from=…&to=…` when the
   * range changes.
   */
  function resourcePanel(root, title, figureList, chartList) {
    let windowMs = HOUR
    let reload = () => {}
    const select = el(
      'select',
      { 'aria-label': `${title}: chart range`, class: 'metrics-range' },
      RANGES.map(([label, ms]) => el('option', { value: ms }, label)),
    )
    const figures = el('div', { class: 'metric-figures' })
    const boxes = el('div', { class: 'metric-charts' })
    root.append(el('header', {}, title, el('span', { class: 'header-actions' }, select)), figures, boxes)
    const shown = {}
    for (const [key, label] of figureList) {
      shown[key] = el('strong', {}, '–')
      figures.append(el('div', { class: 'metric' }, el('small', {}, label), shown[key]))
    }
    const charts = chartList.map(([key, label, format], i) => {
      const box = el('div', { class: 'chart' })
      boxes.append(el('figure', {}, el('figcaption', {}, label), box))
      return { key, chart: timeChart(box, { lines: [{ label, color: colours()[i % 2] }], format, windowMs }) }
    })
    const range = () => {
      const to = Date.now()
      return `from=${to - windowMs}&to=${to}`
    }
    select.addEventListener('change', () => {
      windowMs = Number(select.value)
      for (const { chart } of charts) chart.window = windowMs
      reload(range()).catch(window.sm.fail)
    })
    return {
      shown,
      range,
      onRange(fn) {
        reload = fn
      },
      load(columns) {
        for (const { key, chart } of charts) chart.load(columns, [key])
      },
      push(sample) {
        for (const { key, chart } of charts) chart.push(sample.t, [sample[key]])
        root.dataset.samples = String(Number(root.dataset.samples || 0) + 1)
      },
    }
  }

  /** A server's page: CPU, memory, disk, uptime and players as figures; CPU and memory as charts. */
  function serverPanel(root) {
    const name = root.dataset.metricsServer
    const base = `/api/servers/${encodeURIComponent(name)}`
    const panel = resourcePanel(
      root,
      'Resources',
      [
        ['cpu', 'CPU'],
        ['rss', 'Memory'],
        ['disk', 'Disk'],
        ['uptime', 'Uptime'],
        ['players', 'Players'],
      ],
      [
        ['cpu', 'CPU', percent],
        ['rss', 'Memory', bytes],
      ],
    )
    const { shown } = panel
    // The newest sample shown: a load whose replies left before a streamed sample arrived
    // must not put its older figures (or "not running", from before the first sample) over it.
    let shownAt = 0
    const show = (sample, online, running) => {
      shownAt = sample?.t ?? 0
      shown.cpu.textContent = percent(sample?.cpu)
      shown.rss.textContent = bytes(sample?.rss)
      shown.disk.textContent = bytes(sample?.disk)
      shown.uptime.textContent = sample ? duration(sample.uptime_s) : running ? '–' : 'not running'
      if (online !== undefined) shown.players.textContent = players(online)
    }
    // The figures of an answer a status change overtook are not shown (sm.catchUp): a stopped
    // game's last ones would stay, as no sample follows.
    const asked = window.sm.catchUp()
    const load = (range) =>
      asked.ask(
        () => Promise.all([api('GET', `${base}/metrics?${range}`), api('GET', `${base}/status`)]),
        ([{ columns }, { run }], fresh) => {
          panel.load(columns)
          if (!fresh(name)) return
          const running = ACTIVE.includes(run.status)
          if (running && shownAt > (run.metrics?.t ?? 0)) shown.players.textContent = players(run.players ?? null)
          else show(run.metrics, run.players ?? null, running)
        },
      )
    panel.onRange(load)
    const source = stream([`servers:sampled:${name}`, 'server_status'], ({ type, data }) => {
      if (type === 'server_status') {
        if (data.serverName !== name) return
        asked.live(name)
        if (!ACTIVE.includes(data.status)) show(undefined, null, false)
        return
      }
      if (type !== 'servers:sampled') return // a stop under way (server_stopping): its status changes follow
      panel.push(data.sample)
      show(data.sample, data.players, true)
    })
    source.onopen = () => load(panel.range()).then(loaded).catch(window.sm.fail)
  }

  /** The dashboard's machine panel: CPU, memory and the data disk as figures; CPU and memory as charts. */
  function hostPanel(root, source) {
    const panel = resourcePanel(
      root,
      'This machine',
      [
        ['cpu', 'CPU'],
        ['memory', 'Memory'],
        ['disk', 'Data disk'],
      ],
      [
        ['cpu', 'CPU', percent],
        ['mem_used', 'Memory used', bytes],
      ],
    )
    const { shown } = panel
    let shownAt = 0
    const show = (s) => {
      if (!s || s.t < shownAt) return
      shownAt = s.t
      shown.cpu.textContent = percent(s.cpu)
      shown.memory.textContent = `${bytes(s.mem_used)} of ${bytes(s.mem_total)}`
      shown.disk.textContent = s.disk_total ? `${bytes(s.disk_used)} of ${bytes(s.disk_total)}` : '–'
    }
    const load = async (range) => {
      const reply = await api('GET', `/api/host/metrics?${range}`)
      panel.load(reply.columns)
      show(reply.latest)
    }
    panel.onRange(load)
    source.on('metrics:host_sampled', (sample) => {
      panel.push(sample)
      show(sample)
    })
    return () => load(panel.range())
  }

  /** Small figures under each server's name on the dashboard: CPU, memory, players. */
  function serverRows(rows, source) {
    const cells = new Map()
    for (const row of rows) {
      const small = el('small', { class: 'row-metrics', 'data-row-metrics': '' })
      row.querySelector('td')?.append(small)
      cells.set(row.dataset.server, small)
    }
    // Per server, when its shown sample was taken: a load does not put older figures over a streamed one.
    const shownAt = new Map()
    const show = (name, sample, online, fromLoad) => {
      const cell = cells.get(name)
      if (!cell || (fromLoad && (shownAt.get(name) ?? 0) > (sample?.t ?? 0))) return
      shownAt.set(name, sample?.t ?? 0)
      cell.textContent = sample
        ? `${percent(sample.cpu)} CPU · ${bytes(sample.rss)}${online ? ` · ${online.online} online` : ''}`
        : ''
    }
    source.on('servers:sampled', (data) => show(data.serverName, data.sample, data.players))
    // A game that ended has no figures (its last ones would read as if it still ran), also when an
    // answer read while it ran comes after (sm.catchUp).
    const asked = window.sm.catchUp()
    source.on('server_status', (data) => {
      asked.live(data.serverName)
      if (!ACTIVE.includes(data.status)) show(data.serverName, undefined)
    })
    return () =>
      asked.ask(
        () => api('GET', '/api/servers'),
        ({ servers }, fresh) => {
          for (const s of servers)
            if (fresh(s.name))
              show(s.name, s.metrics, s.players === undefined ? undefined : { online: s.players }, true)
        },
      )
  }

  /** One stream for the dashboard's panels: handlers by message type, loads once it is open. */
  function dashboard(host, rows) {
    const handlers = new Map()
    const loads = []
    const source = {
      on(type, handler) {
        handlers.set(type, handler)
      },
    }
    if (host) loads.push(hostPanel(host, source))
    if (rows.length) loads.push(serverRows(rows, source))
    const topics = [
      ...(rows.length ? ['servers:sampled', 'server_status'] : []),
      ...(host ? ['metrics:host_sampled'] : []),
    ]
    if (!topics.length) return
    const events = stream(topics, ({ type, data }) => handlers.get(type)?.(data))
    events.onopen = () =>
      Promise.all(loads.map((load) => load()))
        .then(loaded)
        .catch(window.sm.fail)
  }

  const server = document.querySelector('[data-metrics-server]')
  if (server) serverPanel(server)
  const host = document.querySelector('[data-host-metrics]')
  const rows = [...document.querySelectorAll('tr[data-server]')]
  if (!server) dashboard(host, rows)
})()
