import { AccessListCommand } from '../../access-list-command'

export default class ServerAllowlist extends AccessListCommand {
  protected readonly list = 'allowlist'
  protected readonly noun = 'players on the allowlist'
  static override summary = "List a server's allowlist, or add or remove a player"
  static override description =
    "The game's own file: Bedrock's allowlist.json, Java's whitelist.json (a generic server has none: SM_ERR_SERVER_ACCESS_UNKNOWN). While the server runs, a change goes to its console ('allowlist add <name>', 'whitelist add <name>'), which looks the name up and writes the file; a refusal is SM_ERR_SERVER_ACCESS_REFUSED. While it is stopped, the file is edited (written whole, then renamed), with the player's id from the player history where the file needs one (Java's UUID): a player who never joined while a manager ran is refused with SM_ERR_SERVER_PLAYER_ID_UNKNOWN (nothing is looked up on the internet). Each change is the allowlist_change action: plugins may veto it, and it is a fact. Turning the allowlist on is the server's own setting (allow-list / white-list in server.properties)."
  static override examples = [
    '<%= config.bin %> server allowlist survival',
    '<%= config.bin %> server allowlist survival add Steve',
    '<%= config.bin %> server allowlist survival add "Sneezy Puma"',
    '<%= config.bin %> server allowlist survival remove Steve --json',
  ]
}
