import { SmError } from '../../kernel/errors'

/**
 * A new password: the first line of standard input with `--password-stdin` (scripts), else asked
 * twice without echo on a terminal. Nothing is ever taken from a flag value (shell history, ps).
 */
export async function readNewPassword(fromStdin: boolean): Promise<string> {
  if (fromStdin) {
    const chunks: Buffer[] = []
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
    const line = Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0] ?? ''
    if (!line)
      throw new SmError('SM_ERR_CLI_MISSING_ARGUMENT', { reason: 'standard input held no password (--password-stdin)' })
    return line
  }
  if (!process.stdin.isTTY)
    throw new SmError('SM_ERR_CLI_MISSING_ARGUMENT', {
      reason: 'no terminal to ask for the password on: pipe it in with --password-stdin',
    })
  const { prompt } = require('enquirer') as typeof import('enquirer')
  const ask = async (message: string) =>
    ((await prompt({ type: 'password', name: 'value', message })) as { value: string }).value
  const first = await ask('Password')
  const second = await ask('Password again')
  if (first !== second)
    throw new SmError('SM_ERR_CLI_INVALID_ARGUMENT', { name: 'password', reason: 'the two passwords differ' })
  return first
}
