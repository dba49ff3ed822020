import { existsSync } from 'node:fs'

/** Debian's nats-server (test/ensure-test-tools.sh installs it), or $SM_NATS_SERVER. Free of mocha: the benchmarks use it too. */
export function natsServerBinary(): string {
  for (const candidate of [process.env.SM_NATS_SERVER, '/usr/sbin/nats-server', '/usr/bin/nats-server'])
    if (candidate && existsSync(candidate)) return candidate
  throw new Error('nats-server is not installed: run test/ensure-test-tools.sh (or set SM_NATS_SERVER)')
}
