import { createWriteStream } from 'node:fs'
import * as yazl from 'yazl'

/** Writes a zip at `file` holding `entries` (name → text), as an admin's archiver would. */
export function writeZip(file: string, entries: Record<string, string>): Promise<void> {
  const zip = new yazl.ZipFile()
  for (const [name, content] of Object.entries(entries)) zip.addBuffer(Buffer.from(content), name)
  zip.end()
  return new Promise((resolve, reject) => {
    zip.outputStream.pipe(createWriteStream(file)).on('close', resolve).on('error', reject)
  })
}
