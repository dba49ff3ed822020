import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { bodyParser } from '@koa/bodyparser'
import Router from '@koa/router'
import Koa from 'koa'

/**
 * The web benchmarks' baseline: a bare Koa with @koa/router and the same body parser, in a process
 * of its own (it shares no event loop with the manager it is measured against), answering what
 * the benchmarks ask with the same handlers and nothing else. `node bare-koa-process.js
 * [<json file> <path>]` also answers GET <path> with that JSON (serialised per request, as any
 * Koa body is). It prints its URL once it listens.
 */
const [bodyFile, path] = process.argv.slice(2)
const app = new Koa()
const router = new Router()
app.use(bodyParser())
router.post('/api/plugins/trigger_event', (ctx) => {
  const body = ctx.request.body as { event_name: string }
  ctx.body = { status: 'success', message: `Event '${body.event_name}' triggered.`, details: null }
})
router.get('/benchplugin/json', (ctx) => {
  ctx.body = { status: 'success', data: { servers: ['lobby', 'survival'], uptime: 12345, ok: true } }
})
if (bodyFile && path) {
  const body: unknown = JSON.parse(readFileSync(bodyFile, 'utf8'))
  router.get(path, (ctx) => {
    ctx.body = body
  })
}
app.use(router.routes())
const server = createServer(app.callback())
server.listen(0, '127.0.0.1', () => {
  console.log(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)
})
process.on('SIGTERM', () => server.close(() => process.exit(0)))
