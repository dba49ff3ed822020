import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { SmError } from '../../../../kernel/errors'
import { ManagerCommand } from '../../manager-command'
import { formatValue, parseValue, readValueSource } from '../../setting-value'

export default class SettingSet extends ManagerCommand {
  static override summary = 'Change a global setting'
  static override description =
    `The value is JSON when it parses as JSON (8080, true, {"a":1}, "quoted"), else stored as text; text that looks like JSON but does not parse ({a:1}) is refused, and --string stores any text as it is. An object is merged into what is stored (other keys stay); --replace makes the key hold exactly the object and lists what it removed. Large values come from a file (--file) or standard input (-). Plugin data goes under custom.<key>. --secret makes the key secret for good (shown as [redacted] everywhere, like keys named password, token, pw, pin, api_key, webhook...).`
  static override examples = [
    '<%= config.bin %> setting set web.port 8080',
    '<%= config.bin %> setting set custom.greeting hello',
    '<%= config.bin %> setting set custom.motd \'{"text":"hi","daily":true}\'',
    '<%= config.bin %> setting set web \'{"port":9001}\'            # web.host stays',
    '<%= config.bin %> setting set custom.motd \'{"text":"hi"}\' --replace',
    '<%= config.bin %> setting set custom.banner --file banner.json',
    '<%= config.bin %> setting set custom.rcon \'{"host":"h","password":"pw"}\' --secret',
    'cat big.json | <%= config.bin %> setting set custom.big -',
  ]
  static override args = {
    key: Args.string({ description: 'dot path, e.g. web.port or custom.greeting', required: true }),
    value: Args.string({ description: "the new value (JSON, or text); '-' reads standard input" }),
  }
  static override flags = {
    file: Flags.string({ description: 'read the value from this file', exclusive: ['string'] }),
    string: Flags.boolean({ description: 'store the value as text, even when it is JSON' }),
    replace: Flags.boolean({ description: 'replace an object instead of merging into it' }),
    json: Flags.boolean({ description: 'print the change as JSON' }),
    secret: Flags.boolean({
      description:
        'make the key secret for good: its value shows as [redacted] everywhere (setting get --reveal shows it)',
    }),
  }

  async run(): Promise<void> {
    const { args, flags } = await this.parse(SettingSet)
    if (flags.file !== undefined && args.value !== undefined)
      throw new SmError('SM_ERR_CLI_UNEXPECTED_ARGUMENT', { reason: 'Give the value or --file, not both' })
    const source = flags.file ?? (args.value === '-' ? '-' : undefined)
    const text = source !== undefined ? await readValueSource(source) : args.value
    if (text === undefined)
      throw new SmError('SM_ERR_CLI_MISSING_ARGUMENT', {
        reason: `Missing the value for ${args.key}: give it, --file <path>, or - for standard input`,
      })
    const value = parseValue(text, { asString: flags.string })
    // The reply shows secrets redacted: a secret setting's value is not echoed.
    const change = await this.request('settings:set', {
      key: args.key,
      value,
      mode: flags.replace ? 'replace' : 'merge',
      ...(flags.secret ? { secret: true } : {}),
    })
    if (flags.json) return this.printJson(change)
    const was = change.previous === undefined ? '' : ` (was ${oneLine(change.previous)})`
    this.log(`${change.key} = ${oneLine(change.value)}${was}`)
    if (change.removed.length) this.log(`removed: ${change.removed.join(', ')}`)
  }
}

/** A value on one line, shortened: the confirmation must not flood the terminal with a 1 MB value. */
function oneLine(value: unknown): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : formatValue(value).replace(/\s*\n\s*/g, ' ')
  return text.length > 200 ? `${text.slice(0, 197)}...` : text
}
