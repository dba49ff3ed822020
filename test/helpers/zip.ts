import { createWriteStream } from 'node:fs'
import { crc32 } from 'node:zlib'
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

/**
 * The bytes of a small jar: a zip (entries stored, as `jar -0` writes them) holding a manifest and
 * `files` (name → text). Sync, so a fixture can write one where it writes its other files.
 */
export function jarBytes(files: Record<string, string> = {}): Buffer {
  const entries = Object.entries({ 'META-INF/MANIFEST.MF': 'Manifest-Version: 1.0\r\n\r\n', ...files })
  const locals: Buffer[] = []
  const centrals: Buffer[] = []
  let offset = 0
  for (const [name, text] of entries) {
    const data = Buffer.from(text)
    const fileName = Buffer.from(name)
    const crc = crc32(data)
    const local = Buffer.alloc(30)
    local.writeUInt32LE(0x04034b50, 0)
    local.writeUInt16LE(10, 4) // version needed
    local.writeUInt32LE(crc, 14)
    local.writeUInt32LE(data.length, 18)
    local.writeUInt32LE(data.length, 22)
    local.writeUInt16LE(fileName.length, 26)
    const central = Buffer.alloc(46)
    central.writeUInt32LE(0x02014b50, 0)
    central.writeUInt16LE(10, 4) // made by
    central.writeUInt16LE(10, 6) // needed
    central.writeUInt32LE(crc, 16)
    central.writeUInt32LE(data.length, 20)
    central.writeUInt32LE(data.length, 24)
    central.writeUInt16LE(fileName.length, 28)
    central.writeUInt32LE(offset, 42)
    locals.push(local, fileName, data)
    centrals.push(central, fileName)
    offset += local.length + fileName.length + data.length
  }
  const directory = Buffer.concat(centrals)
  const end = Buffer.alloc(22)
  end.writeUInt32LE(0x06054b50, 0)
  end.writeUInt16LE(entries.length, 8)
  end.writeUInt16LE(entries.length, 10)
  end.writeUInt32LE(directory.length, 12)
  end.writeUInt32LE(offset, 16)
  return Buffer.concat([...locals, directory, end])
}
