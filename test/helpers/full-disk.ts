import { execFileSync } from 'node:child_process'
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect } from 'chai'
import { alive, killServers } from './game'
import { cli, type RunResult } from './run'

/** Fills the file system holding `file` to the last byte (with `file`). */
export function fill(file: string): void {
  const fd = openSync(file, 'w')
  try {
    for (const size of [1 << 20, 4096, 1]) {
      const chunk = Buffer.alloc(size)
      for (;;)
        try {
          writeSync(fd, chunk)
        } catch {
          break
        }
    }
  } finally {
    closeSync(fd)
  }
}

export function managerPid(data: string): number | undefined {
  try {
    return (JSON.parse(readFileSync(join(data, 'manager.json'), 'utf8')) as { pid: number }).pid
  } catch {
    return undefined
  }
}

export const show = (r: RunResult) => `exit ${r.code}\n${r.stdout}\n${r.stderr}`

/** A suite's full disk: a 20 MB tmpfs (`mount`) holding an empty data directory (`data`). */
export interface FullDisk {
  readonly mount: string
  readonly data: string
  /** Runs the CLI on `data` and expects exit 0; its stdout. */
  ok(args: string[]): Promise<string>
}

/**
 * Mounts the tmpfs before the suite (which skips, saying so, when not root) and after it kills the
 * manager and servers of its data directory and unmounts it.
 */
export function fullDiskSuite(prefix: string): FullDisk {
  const disk = {
    mount: '',
    data: '',
    async ok(args: string[]): Promise<string> {
      const r = await cli(disk.data, args)
      expect(r.code, `${args.join(' ')}: ${show(r)}`).to.equal(0)
      return r.stdout
    },
  }
  before(function () {
    if (process.getuid?.() !== 0) {
      console.log('      (skipped: mounting a tmpfs for a full disk needs root)')
      this.skip()
    }
    disk.mount = mkdtempSync(join(tmpdir(), prefix))
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=20m', 'tmpfs', disk.mount])
    disk.data = join(disk.mount, 'data')
    mkdirSync(disk.data)
  })
  after(async () => {
    if (!disk.mount) return
    const pid = managerPid(disk.data)
    // Never this process: a manager a test started here (managerOn) is stopped by then.
    if (pid && pid !== process.pid && alive(pid)) process.kill(pid, 'SIGKILL')
    await killServers(disk.data)
    execFileSync('umount', ['-l', disk.mount])
    rmSync(disk.mount, { recursive: true, force: true })
  })
  return disk
}

/**
 * Mounts a tmpfs of `size` (`8m`) for the describe that calls this, unmounted in its `after`;
 * the describe skips, saying so, when not root. Returns a getter of the mount point.
 */
export function tmpfsForDescribe(size: string): () => string {
  let mount: string | undefined
  before(function () {
    if (process.getuid?.() !== 0) {
      console.log('      (skipped: mounting a tmpfs for a full disk needs root)')
      this.skip()
    }
    mount = mkdtempSync(join(tmpdir(), 'sm-full-'))
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', mount])
  })
  after(() => {
    if (!mount) return
    execFileSync('umount', ['-l', mount])
    rmSync(mount, { recursive: true, force: true })
  })
  return () => mount as string
}
