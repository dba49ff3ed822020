import { execFile } from 'node:child_process'

/**
 * What a directory tree takes on disk, in bytes, as `du -skx` counts it (POSIX: allocated blocks,
 * links not followed, a file linked several times counted once, one file system), or undefined
 * when it could not be told within `timeoutMs` or was `abort`ed (the walk is then ended).
 *
 * `du` walks it rather than this process: measured in a supervisor, the same walk in JavaScript
 * (bounded, in slices between turns of the event loop) added about 4 MiB more resident memory to
 * each supervisor than the rest of the sampling together, most of it V8's optimizing compiler
 * warming to the walk's loop; `du` costs a short-lived child and nothing that stays.
 */
export function diskUsage(dir: string, timeoutMs: number, abort?: AbortSignal): Promise<number | undefined> {
  const options = { timeout: timeoutMs, killSignal: 'SIGKILL' as const, maxBuffer: 64 * 1024, signal: abort }
  return new Promise((resolve) => {
    execFile('du', ['-skx', dir], options, (_, stdout) => {
      // An unreadable part of the tree is said on stderr, and the total still counts the rest.
      const kib = Number(/^(\d+)\s/.exec(String(stdout))?.[1])
      resolve(Number.isFinite(kib) ? kib * 1024 : undefined)
    })
  })
}
