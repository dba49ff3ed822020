import { AccessListCommand } from '../../access-list-command'

export default class ServerOps extends AccessListCommand {
  protected readonly list = 'operators'
  protected readonly noun = 'operators'
  static override summary = "List a server's operators, or make a player one or no longer one"
  static override description =
    "The game's own file: Bedrock's permissions.json (entries with permission operator; it holds only xuids, so names come from the player history), Java's ops.json (a generic server has none: SM_ERR_SERVER_ACCESS_UNKNOWN). A running Java server is told by its console ('op <name>', 'deop <name>'). Bedrock's op takes only a player who is online, so for Bedrock the file is edited and a running server told 'permission reload'; a stopped server's file is edited the same way. The file needs the player's id (Bedrock xuid, Java UUID), taken from the player history: a player who never joined while a manager ran is refused with SM_ERR_SERVER_PLAYER_ID_UNKNOWN (nothing is looked up on the internet). Each change is the operator_change action: plugins may veto it, and it is a fact."
  static override examples = [
    '<%= config.bin %> server ops survival',
    '<%= config.bin %> server ops survival add Steve',
    '<%= config.bin %> server ops survival remove Steve',
  ]
}
