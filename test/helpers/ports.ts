import { createServer } from 'node:net'
import { expect } from 'chai'
import { cli } from './run'

/** A loopback port nobody listens on now (for a manager that must be reached before it prints its URL). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

/** Runs `server-manager <args>`, expects exit 0 and returns its output. */
export async function cliOk(dataDir: string, args: string[], input?: string): Promise<string> {
  const result = await cli(dataDir, args, {}, input)
  expect(result.code, `${args.join(' ')}: ${result.stderr}`).to.equal(0)
  return result.stdout
}
