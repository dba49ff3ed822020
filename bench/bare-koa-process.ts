import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import Router from '@koa/router'
import Koa from 'koa'

/**
 * A bare Koa with @koa/router in a process of its own (a baseline that shares no event loop with
 * the manager it is measured against): `node bare-koa-process.js <json file> <path>` answers
 * GET <path> with that JSON (serialised per request, as any Koa body is), and prints its URL.
 */
const [bodyFile, path] = process.argv.slice(2)
if (!bodyFile || !path) {
  console.error('usage: bare-koa-process <json file> <path>')
  process.exit(2)
}
const body: unknown = JSON.parse(readFileSync(bodyFile, 'utf8'))
const app = new Koa()
const router = new Router()
router.get(path, (ctx) => {
  ctx.body = body
})
app.use(router.routes())
const server = createServer(app.callback())
server.listen(0, '127.0.0.1', () => {
  console.log(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)
})
process.on('SIGTERM', () => server.close(() => process.exit(0)))
