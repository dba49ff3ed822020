import { existsSync, statSync } from 'node:fs'
import { LogTail } from '../../services/servers/supervisor/log-tail'

/** Resolves with the first line matching `pattern` appended to `file` from its size now on (follows it, no polling of ours). */
export function nextLine(file: string, pattern: RegExp): Promise<string> {
  const offset = existsSync(file) ? statSync(file).size : 0
  return new Promise((resolve) => {
    const tail: LogTail = new LogTail(file, offset, (line) => {
      if (!pattern.test(line)) return
      tail.stop()
      resolve(line)
    }).start({ ref: false }) // a test that fails before the line comes must not keep mocha alive
  })
}
