import { defineErrors, type ErrorMapOf, spec } from '../../kernel/error-catalogue'

/** The servers service's error codes (docs/errors.md). */
export const serversErrors = defineErrors('servers', {
  SM_ERR_SERVER_NOT_FOUND: spec<{ server: string; hint: string }>({
    status: 404,
    exit: 66,
    when: 'A server name that is not registered.',
    message: (p) => `No server is named '${p.server}'.${p.hint} 'server-manager server list' shows them.`,
    web: (p) => `No server is named '${p.server}'.${p.hint} The dashboard lists the servers you may see.`,
  }),
  SM_ERR_SERVER_EXISTS: spec<{ server: string; dir: string }>({
    status: 409,
    exit: 65,
    when: 'A server was added under a name that is taken.',
    message: (p) =>
      `A server named '${p.server}' is already registered (${p.dir}). Choose another name, or remove it first.`,
  }),
  SM_ERR_SERVER_INVALID_NAME: spec<{ server: string }>({
    status: 422,
    exit: 64,
    when: 'A server name that cannot be one.',
    message: (p) =>
      `'${p.server}' cannot be a server name. Use up to 64 letters, digits, '_' and '-', starting with a letter or digit.`,
  }),
  SM_ERR_SERVER_DIR_UNUSABLE: spec<{ dir: string; reason: string }>({
    status: 422,
    exit: 66,
    when: "A server's directory is missing, not a directory, another server's (by its real path), inside or holding one, or in the data directory.",
    message: (p) => `The directory '${p.dir}' cannot be used for this server: ${p.reason}.`,
  }),
  SM_ERR_SERVER_NO_COMMAND: spec<{ dir: string }>({
    status: 422,
    exit: 64,
    when: 'A directory with neither bedrock_server nor a server jar was added without --command.',
    message: (p) =>
      `'${p.dir}' holds no bedrock_server and no server jar, so server-manager cannot tell how to start it. Add it with --command <executable> (and --arg, --env, --stop-command, --world-dir, --ready-line as needed).`,
    web: (p) =>
      `'${p.dir}' holds no bedrock_server and no server jar, so server-manager cannot tell how to start it. Fill in its Command (and the fields under it as needed), or install a server zip or jar instead.`,
  }),
  SM_ERR_SERVER_EULA_REQUIRED: spec<{ server: string; url: string }>({
    status: 409,
    exit: 78,
    when: 'A server whose game needs its EULA accepted (Minecraft Java Edition) was started before an admin accepted it.',
    message: (p) =>
      `The server '${p.server}' cannot start until its EULA is accepted. Read it at ${p.url}, then accept it with 'server-manager server eula ${p.server} --accept' (or in the web UI); server-manager never accepts it for you.`,
    web: (p) =>
      `The server '${p.server}' cannot start until its EULA is accepted. Read it at ${p.url}, then accept it on the server's page; server-manager never accepts it for you.`,
  }),
  SM_ERR_SERVER_JAVA_MISSING: spec<{ server: string; command: string; reason: string }>({
    status: 424,
    exit: 69,
    when: "A Java Edition server was started where '<command> -version' does not run: no Java runtime is installed or on PATH.",
    message: (p) =>
      `The server '${p.server}' needs Java, and '${p.command} -version' did not run (${p.reason}). Install a Java runtime (e.g. 'apt install openjdk-21-jre-headless'; Minecraft 1.20.5 and later need Java 21), or add the server with --command /path/to/java.`,
    web: (p) =>
      `The server '${p.server}' needs Java, and '${p.command} -version' did not run (${p.reason}). Install a Java runtime on the manager's machine (e.g. 'apt install openjdk-21-jre-headless'; Minecraft 1.20.5 and later need Java 21), or set its Command to the java to run (How it runs, on its page).`,
  }),
  SM_ERR_SERVER_PROFILE_INVALID: spec<{ server: string; field: string; reason: string }>({
    status: 422,
    exit: 64,
    when: "A server's profile, or a profile field given for it (ready line, error line, say command, config file, hot-backup commands), is not usable.",
    message: (p) => `The ${p.field} given for the server '${p.server}' cannot be used: ${p.reason}.`,
  }),
  SM_ERR_SERVER_PROPERTIES_MISSING: spec<{ server: string; file: string }>({
    status: 404,
    exit: 66,
    when: 'A server has no server.properties to read or change.',
    message: (p) =>
      `The server '${p.server}' has no ${p.file}. Bedrock servers ship one; put it back (or start the server once) and try again.`,
  }),
  SM_ERR_SERVER_PROPERTY_INVALID: spec<{ server: string; key: string; reason: string }>({
    status: 422,
    exit: 64,
    when: 'A server.properties change with an unknown key or a value out of range.',
    message: (p) => `'${p.key}' cannot be set for '${p.server}': ${p.reason}. Nothing was changed.`,
  }),
  SM_ERR_SERVER_SETTING_INVALID: spec<{ server: string; key: string; reason: string }>({
    status: 422,
    exit: 64,
    when: 'A per-server setting with an unknown key or a value of the wrong kind.',
    message: (p) => `The server setting '${p.key}' of '${p.server}' cannot be used: ${p.reason}. Nothing was changed.`,
  }),
  SM_ERR_SERVER_CHANGE_CANCELLED: spec<{ server: string; action: string; by: string; reason: string }>({
    status: 409,
    exit: 1,
    when: 'A before_* hook vetoed an action on a server.',
    message: (p) => `${p.action} '${p.server}' was cancelled by '${p.by}': ${p.reason}. Nothing was changed.`,
  }),
  SM_ERR_SERVER_DELETE_REFUSED: spec<{ server: string; dir: string; reason: string }>({
    status: 409,
    exit: 77,
    when: "Deleting a server's files was refused (an unsafe path, or no confirmation).",
    message: (p) => `The files of '${p.server}' in ${p.dir} were not deleted: ${p.reason}.`,
  }),
  SM_ERR_SERVER_FORGET_REFUSED: spec<{ server: string; host: string; reason: string }>({
    status: 409,
    exit: 75,
    when: 'A server of another host could not be forgotten (`server remove --forget`): its host is online, or files were to be deleted.',
    message: (p) => `'${p.server}' (on host '${p.host}') was not forgotten: ${p.reason}.`,
  }),
  SM_ERR_SERVER_ALREADY_RUNNING: spec<{ server: string; status: string; pid: string }>({
    status: 409,
    exit: 75,
    when: 'A start of a server that is already starting, running or stopping.',
    message: (p) =>
      `The server '${p.server}' is already ${p.status} (PID ${p.pid}). Stop it first, or use 'server restart'.`,
    web: (p) => `The server '${p.server}' is already ${p.status} (PID ${p.pid}). Stop it first, or restart it.`,
  }),
  SM_ERR_SERVER_NOT_RUNNING: spec<{ server: string; status: string; action: string }>({
    status: 409,
    exit: 75,
    when: 'A stop, restart, kill or console command for a server that is not running.',
    message: (p) =>
      p.action === 'be stopped' || p.action === 'be killed'
        ? `The server '${p.server}' is ${p.status}: it is not running, so there is nothing to stop${p.status === 'crashed' ? ` ('server status ${p.server}' says how it ended)` : ''}.`
        : `The server '${p.server}' is ${p.status}, so it cannot ${p.action}. Start it first ('server start ${p.server}').`,
    web: (p) =>
      p.action === 'be stopped' || p.action === 'be killed'
        ? `The server '${p.server}' is ${p.status}: it is not running, so there is nothing to stop.`
        : `The server '${p.server}' is ${p.status}, so it cannot ${p.action}. Start it first.`,
  }),
  SM_ERR_SERVER_BUSY: spec<{ server: string; action: string; pid: string; since: string }>({
    status: 409,
    exit: 75,
    when: 'Another process is already starting, stopping or restarting the server (one power action at a time).',
    message: (p) =>
      `The server '${p.server}' is busy: a ${p.action} by PID ${p.pid} has been running since ${p.since}. Wait for it to finish, or use 'server kill' to end the game at once.`,
    web: (p) =>
      `The server '${p.server}' is busy: a ${p.action} by PID ${p.pid} has been running since ${p.since}. Wait for it to finish, or kill the game to end it at once.`,
  }),
  SM_ERR_SERVER_START_FAILED: spec<{ server: string; reason: string; log: string }>({
    status: 500,
    exit: 70,
    when: 'The game server process could not be started, or exited before it was ready.',
    message: (p) => `The server '${p.server}' did not start: ${p.reason}.${p.log} See 'server logs ${p.server}'.`,
  }),
  SM_ERR_SERVER_START_TIMEOUT: spec<{ server: string; seconds: number }>({
    status: 504,
    exit: 75,
    when: 'A server did not print its ready line within servers.start_timeout_s.',
    message: (p) =>
      `The server '${p.server}' is still starting after ${p.seconds} s (no ready line yet). It was left running: follow it with 'server logs ${p.server} --follow', or raise servers.start_timeout_s.`,
  }),
  SM_ERR_SERVER_COMMAND_INVALID: spec<{ server: string; reason: string }>({
    status: 422,
    exit: 64,
    when: 'A console command that is empty, has line breaks or is too long.',
    message: (p) => `That command cannot be sent to '${p.server}': ${p.reason}. Nothing was sent.`,
  }),
  SM_ERR_SERVER_ACTION_UNKNOWN: spec<{ action: string; known: string }>({
    status: 422,
    exit: 64,
    when: '`servers:begin` (POST /api/servers/{name}/<action>) was asked for work it does not begin.',
    message: (p) => `'${p.action}' is not work a server can begin. Ask for one of: ${p.known}. Nothing was started.`,
  }),
  SM_ERR_SERVER_COMMAND_REFUSED: spec<{
    server: string
    command: string
    line: string
    /** Every line the game answered (the API's error body and a plugin's result carry them). */
    reply: readonly string[]
  }>({
    status: 422,
    exit: 65,
    when: "A console command the game received and refused: a reply line matched its profile's error lines (`Unknown command`).",
    message: (p) =>
      `The server '${p.server}' refused the command '${p.command}': "${p.line}". It was sent once and not run (it is not sent again): check its spelling and arguments ('help' on most games lists them), and send the corrected command.`,
  }),
  SM_ERR_SERVER_CONSOLE_UNAVAILABLE: spec<{ server: string; reason: string }>({
    status: 503,
    exit: 69,
    when: "A server's console input cannot take a command now.",
    message: (p) => `The console of '${p.server}' cannot take a command now: ${p.reason}. Nothing was sent; try again.`,
  }),
  SM_ERR_SERVER_SUPERVISOR_FAILED: spec<{ server: string; reason: string; log: string }>({
    status: 500,
    exit: 70,
    when: "A server's supervisor, or the host agent it runs in, could not be started or stopped answering.",
    message: (p) => `The supervisor of '${p.server}' failed: ${p.reason}. Its own log is ${p.log}.`,
  }),
  SM_ERR_SERVER_SUPERVISED: spec<{ server: string; pid: string }>({
    status: 409,
    exit: 75,
    when: 'A second supervisor was started for a server that already has one.',
    message: (p) => `The server '${p.server}' already has a supervisor (PID ${p.pid}); nothing was started.`,
  }),
  SM_ERR_SERVER_AGENT_RUNNING: spec<{ dir: string }>({
    status: 409,
    exit: 75,
    when: 'A second host agent was started for a data directory whose agent already serves (the starter then talks to that one).',
    message: (p) =>
      `The data directory '${p.dir}' already has a host agent; this one ends. Use 'server-manager agent status' to see it.`,
  }),
  SM_ERR_SERVER_TRANSITION_ILLEGAL: spec<{ server: string; event: string; phase: string }>({
    status: 409,
    exit: 75,
    when: "A server's supervisor was asked for a change its run cannot make now (supervisor/run-machine.ts).",
    message: (p) =>
      `The supervisor of '${p.server}' cannot ${p.event} while its run is ${p.phase}; nothing was changed. Check 'server status ${p.server}' and try again once it allows it.`,
    web: (p) =>
      `The supervisor of '${p.server}' cannot ${p.event} while its run is ${p.phase}; nothing was changed. Wait for its status to change on its page, then try again.`,
  }),
  SM_ERR_SERVER_PATH_TOO_LONG: spec<{ path: string }>({
    status: 500,
    exit: 78,
    when: "A server's supervisor socket path is longer than UNIX sockets allow (107 bytes).",
    message: (p) =>
      `The socket path '${p.path}' is too long for a UNIX socket. Use a shorter data directory (SM_DATA_DIR) or server name.`,
  }),
  SM_ERR_SERVER_PLAYERS_UNKNOWN: spec<{ server: string; profile: string }>({
    status: 422,
    exit: 69,
    when: 'Who is online was asked of a server whose profile cannot tell (a generic server: no list command).',
    message: (p) =>
      `The server '${p.server}' (profile ${p.profile}) has no way to list who is online: only the bedrock and java profiles know their game's list command. Ask the game yourself with 'server send ${p.server} <command>'.`,
    web: (p) =>
      `The server '${p.server}' (profile ${p.profile}) has no way to list who is online: only the bedrock and java profiles know their game's list command. Ask the game in its console.`,
  }),
  SM_ERR_SERVER_PLAYERS_UNREADABLE: spec<{ server: string; command: string; reply: string }>({
    status: 502,
    exit: 69,
    when: "A server answered its profile's list command with something that is not a players list.",
    message: (p) =>
      `The server '${p.server}' did not answer '${p.command}' with a players list (its reply: ${p.reply}). Is it the game its profile says? 'server info ${p.server}' shows the profile; 'server logs ${p.server}' what it printed.`,
  }),
  SM_ERR_SERVER_ACCESS_UNKNOWN: spec<{ server: string; profile: string; list: string }>({
    status: 422,
    exit: 69,
    when: 'An allowlist or operators change or read for a server whose profile knows no such list (a generic server).',
    message: (p) =>
      `The server '${p.server}' (profile ${p.profile}) has no ${p.list} the manager knows: only the bedrock and java profiles know their game's allowlist and operators files. Manage them the game's own way ('server send ${p.server} <command>', or its files).`,
    web: (p) =>
      `The server '${p.server}' (profile ${p.profile}) has no ${p.list} the manager knows: only the bedrock and java profiles know their game's allowlist and operators files. Manage them the game's own way, in its console or its files.`,
  }),
  SM_ERR_SERVER_PLAYER_INVALID: spec<{ server: string; player: string; reason: string }>({
    status: 422,
    exit: 64,
    when: 'An allowlist or operators change named a player that cannot be a player name.',
    message: (p) => `'${p.player}' cannot be a player of '${p.server}': ${p.reason}. Nothing was changed.`,
  }),
  SM_ERR_SERVER_PLAYER_ID_UNKNOWN: spec<{
    server: string
    player: string
    list: string
    file: string
    id: string
    hint: string
  }>({
    status: 409,
    exit: 75,
    when: "A player was to be added to a list whose file needs the player's id (Java's UUID, Bedrock's xuid in permissions.json) while the manager edits the file, and the player history knows none.",
    message: (p) =>
      `'${p.player}' cannot be added to the ${p.list} of '${p.server}' now: ${p.file} names players by ${p.id}, and no ${p.id} of '${p.player}' is known (the player history has the ids of players who joined while a manager ran; nothing is looked up on the internet). Let '${p.player}' join the server once${p.hint}, then try again. Nothing was changed.`,
  }),
  SM_ERR_SERVER_ACCESS_REFUSED: spec<{
    server: string
    list: string
    player: string
    change: string
    line: string
    /** Every line the game answered. */
    reply: readonly string[]
  }>({
    status: 422,
    exit: 65,
    when: "A running game refused an allowlist or operators change sent to its console (a reply line matched its profile's error lines).",
    message: (p) =>
      `The server '${p.server}' refused to ${p.change} '${p.player}' ${p.change === 'add' ? 'to' : 'from'} its ${p.list}: "${p.line}". Check the name's spelling; a Java server knows only players who joined it before unless it can ask Mojang's servers (it needs the internet for that). Nothing was changed.`,
  }),
  SM_ERR_SERVER_ACCESS_FILE_INVALID: spec<{ server: string; file: string; reason: string }>({
    status: 422,
    exit: 65,
    when: "A server's allowlist or operators file is not a JSON list of players.",
    message: (p) =>
      `${p.file} of '${p.server}' cannot be read as a list of players: ${p.reason}. Fix it or remove it (the game writes an empty one); nothing was changed.`,
  }),
  SM_ERR_SERVER_ACCESS_FILE_UNWRITABLE: spec<{ server: string; file: string; reason: string }>({
    status: 500,
    exit: 74,
    when: "A server's allowlist or operators file could not be written (permissions, a read-only or full disk).",
    message: (p) =>
      `${p.file} of '${p.server}' cannot be written: ${p.reason}. Give the user the manager runs as write access to the server's folder (chmod, chown) or free space on its disk, then try again; nothing was changed.`,
  }),
  SM_ERR_BACKUP_NOT_FOUND: spec<{ server: string; file: string }>({
    status: 404,
    exit: 66,
    when: 'A restore named a backup the server does not have.',
    message: (p) =>
      `The server '${p.server}' has no backup named '${p.file}'. 'server-manager server backups ${p.server}' lists them.`,
    web: (p) => `The server '${p.server}' has no backup named '${p.file}'. Its page lists its backups.`,
  }),
  SM_ERR_BACKUP_INVALID: spec<{ file: string; reason: string }>({
    status: 422,
    exit: 65,
    when: 'An archive to restore or import is not a usable backup (not a zip, or not a world).',
    message: (p) => `'${p.file}' is not a usable backup: ${p.reason}. Nothing was changed.`,
  }),
  SM_ERR_BACKUP_UNSAFE_ENTRY: spec<{ file: string; entry: string; reason: string }>({
    status: 422,
    exit: 65,
    when: 'An archive (or a folder to install from) holds an entry that would land outside the directory it is extracted into, or write through a link: a symbolic link, or an entry inside another entry that is a file.',
    message: (p) =>
      `'${p.file}' was refused: its entry '${p.entry}' cannot be extracted (${p.reason}). Nothing was changed.`,
  }),
  SM_ERR_BACKUP_NOTHING: spec<{ server: string; what: string }>({
    status: 404,
    exit: 66,
    when: 'A backup found nothing to back up (no world directory, no config files).',
    message: (p) => `The server '${p.server}' has no ${p.what} to back up.`,
  }),
  SM_ERR_BACKUP_SERVER_RUNNING: spec<{ server: string; action: string }>({
    status: 409,
    exit: 75,
    when: 'A restore or import was asked of a running server without permission to stop it.',
    message: (p) =>
      `The server '${p.server}' is running, so ${p.action} would change files under it. Stop it first, or ask for it to be stopped and started again (--stop).`,
    web: (p) =>
      `The server '${p.server}' is running, so ${p.action} would change files under it. Stop it first, or ask for it to be stopped for it and started again.`,
  }),
  SM_ERR_BACKUP_FAILED: spec<{ server: string; action: string; reason: string }>({
    status: 500,
    exit: 74,
    when: 'A backup, restore, export or import failed while it ran (files, or the hot-backup console protocol).',
    message: (p) =>
      `The ${p.action} of '${p.server}' failed: ${p.reason}. No partial archive or world was left in place.`,
  }),
  SM_ERR_BACKUP_EXISTS: spec<{ file: string }>({
    status: 409,
    exit: 73,
    when: 'An export would overwrite a file.',
    message: (p) => `'${p.file}' already exists. Choose another file name, or remove it first.`,
  }),
  SM_ERR_SCHEDULE_INVALID: spec<{ server: string; reason: string }>({
    status: 422,
    exit: 64,
    when: 'A schedule with a bad cron expression, time zone, action or command.',
    message: (p) => `That schedule for '${p.server}' cannot be added: ${p.reason}. Nothing was added.`,
  }),
  SM_ERR_SCHEDULE_NOT_FOUND: spec<{ id: string }>({
    status: 404,
    exit: 66,
    when: 'A schedule id that is not known.',
    message: (p) => `No schedule has the id '${p.id}'. 'server-manager server schedule list' lists them.`,
    web: (p) => `No schedule has the id '${p.id}'. The server's page lists its schedules.`,
  }),
  SM_ERR_ARCHIVE_TOO_LARGE: spec<{ file: string; size: string; limitMb: number }>({
    status: 413,
    exit: 65,
    when: 'An archive to install, update from, restore or import unpacks to more than servers.max_unpacked_mb (declared, or counted while it was unpacked).',
    message: (p) =>
      `'${p.file}' was refused: it unpacks to ${p.size}, more than servers.max_unpacked_mb allows (${p.limitMb} MB). Nothing of it was kept. If it is what you meant, raise the setting (server-manager setting set servers.max_unpacked_mb <MB>) and try again.`,
    web: (p) =>
      `'${p.file}' was refused: it unpacks to ${p.size}, more than servers.max_unpacked_mb allows (${p.limitMb} MB). Nothing of it was kept. If it is what you meant, raise that setting on the Settings page and try again.`,
  }),
  SM_ERR_ARCHIVE_NO_SPACE: spec<{ file: string; sizeMb: number; freeMb: number; dir: string }>({
    status: 413,
    exit: 73,
    when: 'An archive to install, update from, restore or import unpacks (or a release copies) to more than the free space of the disk it goes to.',
    message: (p) =>
      `'${p.file}' was refused: it unpacks to ${p.sizeMb} MB, and the disk of ${p.dir} has ${p.freeMb} MB free. Nothing was written. Free space there and try again.`,
  }),
  SM_ERR_INSTALL_INVALID: spec<{ source: string; reason: string }>({
    status: 422,
    exit: 65,
    when: 'An install or update source that is not a Bedrock server (zip or directory).',
    message: (p) => `'${p.source}' cannot be installed: ${p.reason}. Nothing was changed.`,
  }),
  SM_ERR_INSTALL_SOURCE_UNSUPPORTED: spec<{ source: string }>({
    status: 422,
    exit: 64,
    when: 'An install source given as a URL.',
    message: (p) =>
      `'${p.source}' is a URL, and this server-manager does not download. Download the server zip yourself and pass its path to --from.`,
  }),
})

declare module '../../kernel/error-catalogue' {
  interface ErrorMap extends ErrorMapOf<typeof serversErrors> {}
}
