import { readFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import { SmError } from '../../kernel/errors'

/**
 * The value a command line means: JSON when it is JSON (`8080`, `true`, `{"a":1}`), text when
 * it is not, but never text that only looks like JSON (`{a:1}`), which is a mistake to report
 * rather than a string to store. `--string` takes the text as it is.
 */
export function parseValue(text: string, options: { asString?: boolean; name?: string } = {}): unknown {
  if (options.asString) return text
  try {
    return JSON.parse(text)
  } catch (error) {
    if (!/^\s*[[{"]/.test(text)) return text
    throw new SmError('SM_ERR_CLI_INVALID_ARGUMENT', {
      name: options.name ?? 'value',
      reason: `it looks like JSON but does not parse (${(error as Error).message}); fix it, or pass --string to store the text as it is`,
    })
  }
}

/** The text of `--file <path>`, or of standard input for `-`. */
export async function readValueSource(source: string): Promise<string> {
  try {
    const text = source === '-' ? await readStdin() : await readFile(source, 'utf8')
    // A file's or a pipe's final newline is not part of the value.
    return text.endsWith('\n') ? text.slice(0, text.endsWith('\r\n') ? -2 : -1) : text
  } catch (error) {
    throw new SmError('SM_ERR_CLI_INVALID_ARGUMENT', {
      name: source === '-' ? 'standard input' : `--file ${source}`,
      reason: `it cannot be read (${(error as Error).message})`,
    })
  }
}

/** A setting for people: strings as they are, everything else as JSON. */
export function formatValue(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2)
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

/** A `--from` as the manager should see it: a URL as given (it explains what it cannot do), a path made absolute. */
export function sourceArg(from: string): string {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(from) ? from : resolve(from)
}
