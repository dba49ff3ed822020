import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import { cliErrors } from '../../services/cli/errors'
import { managerCatalogue } from '../helpers/manager'
import { ROOT } from '../helpers/run'

const DOC = join(ROOT, 'docs', 'errors.md')

/** Every code the product raises: what a manager's services declare, and the CLI's own (cli.ts knows them). */
function errorCatalogue() {
  const catalogue = managerCatalogue()
  catalogue.add([cliErrors], 'the CLI')
  return catalogue.errors()
}

const INTRO = `# Errors

Every error server-manager raises is an \`SmError\` with a stable code
(\`SM_ERR_<AREA>_<PROBLEM>\`), a message that says what to do, an HTTP status (what the web API
answers) and an exit code (what the CLI ends with). Each service declares its own codes in its
\`errors.ts\` (the kernel's are in \`kernel/kernel-errors.ts\`); this page is generated from those
declarations, and a test keeps the two equal (\`SM_WRITE_DOCS=1 npx mocha
dist/test/kernel/error-catalogue.test.js\` rewrites it).

On the command line an error prints as one line on stderr, \`Error [SM_ERR_…]: message\`, and the
process exits with the code below. Over HTTP the body is \`{ status: 'error', code, message,
detail }\`, with \`issues\` for a request that is not valid and \`reply\` (the game's lines) for a
console command the game refused; messages of 5xx errors are not shown to clients. Plugin
failures carry the plugin's name, the hook or phase, and the cause.

Exit codes follow the BSD \`sysexits\` convention: 64 bad usage or input, 65 bad data, 66 no such
thing, 69 unavailable, 70 internal, 73 cannot create, 74 I/O, 75 temporary (retry), 77 not
allowed, 1 a plain "no". \`server status\` alone also exits non-zero without an error: 1 to 5
tell a server that is not up (crashed 1, error 2, stopped 3, starting 4, stopping 5; see the
README), so \`server status <name> && …\` means it is up.
`

/** docs/errors.md as the declarations say it should be. */
function renderDoc(): string {
  // Grouped by owner (the kernel first), each in its declaration order: the page must not depend
  // on the order the services are added in.
  const rank = (owner: string) => (owner === 'kernel' ? '' : owner)
  const entries = [...errorCatalogue()].sort((a, b) => rank(a.owner).localeCompare(rank(b.owner)))
  const placeholder = new Proxy({}, { get: (_t, key) => `<${String(key)}>` })
  const lines = [INTRO, '| code | declared by | HTTP | exit | when |', '|---|---|---|---|---|']
  for (const { code, owner, spec } of entries)
    lines.push(`| \`${code}\` | ${owner} | ${spec.status} | ${spec.exit} | ${spec.when} |`)
  lines.push('', '## Messages', '', 'The message templates, with their parameters in angle brackets:', '')
  for (const { code, spec } of entries) lines.push(`- \`${code}\`: ${spec.message(placeholder)}`)
  lines.push(
    '',
    '## In the panel',
    '',
    'Where a message names a command line, the panel and the HTTP API say what to do there instead:',
    '',
  )
  for (const { code, spec } of entries) if (spec.web) lines.push(`- \`${code}\`: ${spec.web(placeholder)}`)
  return `${lines.join('\n')}\n`
}

describe('kernel/error-catalogue', () => {
  it('is documented in docs/errors.md, generated from what every service declares', () => {
    const expected = renderDoc()
    if (process.env.SM_WRITE_DOCS === '1') writeFileSync(DOC, expected)
    expect(readFileSync(DOC, 'utf8'), 'regenerate docs/errors.md (SM_WRITE_DOCS=1)').to.equal(expected)
  })

  it('uses SM_ERR_<AREA>_<PROBLEM> codes, HTTP statuses and exit codes in range, and messages that end a sentence', () => {
    const entries = errorCatalogue()
    expect(entries.length).to.be.greaterThan(40)
    for (const { code, spec } of entries) {
      expect(code).to.match(/^SM_ERR_[A-Z]+(_[A-Z]+)*$/)
      expect(spec.status).to.be.within(400, 599)
      expect(spec.exit).to.be.within(1, 125)
      const message = spec.message(new Proxy({}, { get: (_t, key) => `<${String(key)}>` }))
      expect(message, code).to.match(/[.)>]$/)
    }
  })

  it('says what to do in the panel wherever a message a panel user may meet names a command line (issue 34, item 5)', () => {
    const placeholder = new Proxy({}, { get: (_t, key) => `<${String(key)}>` })
    // A command line: 'server-manager …', a subcommand in quotes, or a --flag.
    const commandLine =
      /'server-manager [a-z]|server-manager (setting|user|token|server|plugin|agent) |\s\(?--[a-z]|'(server|user|token|plugin|setting|tasks|events) [a-z]/
    // Met only at a command line (the CLI, the bridge, an agent, the first user, a download), or a
    // host name the panel cannot be reached by: their message is for the terminal.
    const terminalOnly = new Set([
      'SM_ERR_MANAGER_NOT_RUNNING',
      'SM_ERR_BRIDGE_BAD_MESSAGE',
      'SM_ERR_NATS_CONFIG',
      'SM_ERR_WEB_HOST_REFUSED',
      'SM_ERR_AUTH_FIRST_ADMIN',
      'SM_ERR_AUTH_NO_ADMIN',
      'SM_ERR_SERVER_AGENT_RUNNING',
      'SM_ERR_INSTALL_SOURCE_UNSUPPORTED',
    ])
    const missing: string[] = []
    for (const { code, owner, spec } of errorCatalogue()) {
      if (spec.web) expect(spec.web(placeholder), code).not.to.match(commandLine)
      if (spec.status >= 500 || owner === 'cli' || terminalOnly.has(code) || spec.web) continue
      if (commandLine.test(spec.message(placeholder))) missing.push(code)
    }
    expect(missing, 'give these a web text (ErrorSpec.web)').to.deep.equal([])
  })

  it('renders every message from its parameters as given: a template that computes on one (NaN s) is caught here', () => {
    // The page shows each parameter as <name>: arithmetic on it or a field of it shows NaN, undefined or [object …].
    for (const { code, spec } of errorCatalogue()) {
      const message = spec.message(new Proxy({}, { get: (_t, key) => `<${String(key)}>` }))
      expect(message, code).not.to.match(/\bNaN\b|\bundefined\b|\[object /)
    }
  })
})
