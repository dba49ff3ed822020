import { parseJson, type Reply } from './web'

/**
 * A multipart/form-data POST of `fields` and one file part named `field`, as a browser's form
 * sends it (fetch streams a Blob from `openAsBlob` off the disk); the reply whatever its status.
 */
export async function postFile(
  url: string,
  token: string,
  fields: Record<string, string>,
  file: Blob,
  filename = 'upload.bin',
  field = 'file',
): Promise<Reply> {
  const form = new FormData()
  for (const [name, value] of Object.entries(fields)) form.append(name, value)
  form.append(field, file, filename)
  const res = await fetch(url, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, Accept: 'application/json' },
    body: form,
  })
  const text = await res.text()
  return { status: res.status, headers: res.headers, text, json: parseJson(text) }
}
