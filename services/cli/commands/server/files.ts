import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { formatSize, table } from '../../format'
import { ManagerCommand } from '../../manager-command'

/** What a link's row says about where it leads. */
const LEADS = {
  file: '',
  directory: '/',
  other: '',
  outside: ' -> (outside the server directory)',
  missing: ' -> (nothing)',
}

export default class ServerFiles extends ManagerCommand {
  protected override loadsPlugins = false
  static override summary = "List a folder of a server's directory"
  static override description =
    "Folders first, then files, each by name, with size and time; a link that leads out of the server directory is shown, never followed. The path is relative to the server directory. Viewing, editing, uploading and deleting are in the web UI's Files page and the API (admins)."
  static override examples = [
    '<%= config.bin %> server files survival',
    '<%= config.bin %> server files survival worlds',
    '<%= config.bin %> server files survival config --json',
  ]
  static override args = {
    name: Args.string({ description: 'the server name', required: true }),
    path: Args.string({ description: 'a folder, relative to the server directory', default: '' }),
  }
  static override flags = { json: Flags.boolean({ description: 'print the listing as JSON' }) }

  async run(): Promise<void> {
    const { args, flags } = await this.parse(ServerFiles)
    const listing = await this.request('files:list', { name: args.name, path: args.path })
    if (flags.json) return this.printJson(listing)
    if (listing.entries.length === 0) return this.log(`${listing.path || '.'} is empty.`)
    const rows = listing.entries.map((e) => [
      e.type === 'directory' ? `${e.name}/` : e.type === 'link' ? `${e.name}${LEADS[e.link ?? 'missing']}` : e.name,
      e.type === 'directory' ? '' : formatSize(e.size),
      e.mtime,
    ])
    for (const line of table(['NAME', 'SIZE', 'MODIFIED'], rows, [1])) this.log(line)
    if (listing.truncated) this.log('(more entries than a listing holds: the first ones by name are shown)')
  }
}
