/**
 * Console command words only admins may send over the API (decisions §7, issue 32): they stop,
 * reload or save the game, or change who may join, who is an operator and what anyone may do.
 * - stopping, reloading and saving: `stop`, `restart`, `reload` and Bukkit's `rl`, `paper`
 *   (`paper reload`), a proxy's `end`, `shutdown` and `greload`, `save` (Bedrock's `save
 *   hold|resume|query`) and `save-all`, `save-off`, `save-on` (Java);
 * - who may join: `allowlist`, `whitelist`;
 * - operators and permissions: `op`, `deop`, `permission` (Bedrock), `changesetting` (Bedrock's
 *   server settings), and the permission plugins' `lp`, `lpb`, `lpv`, `luckperms`, `pex`, `perm`,
 *   `perms`, `permissions`, `sudo` and EssentialsX's `esudo` (a command run as someone else).
 * Moderators send anything else (say, list, kick, ban, tp, gamemode…).
 */
const ADMIN_ONLY: ReadonlySet<string> = new Set([
  'stop',
  'restart',
  'reload',
  'rl',
  'paper',
  'end',
  'shutdown',
  'greload',
  'save',
  'save-all',
  'save-off',
  'save-on',
  'allowlist',
  'whitelist',
  'op',
  'deop',
  'permission',
  'changesetting',
  'lp',
  'lpb',
  'lpv',
  'luckperms',
  'pex',
  'perm',
  'perms',
  'permissions',
  'sudo',
  'esudo',
])

/** Commands that run another command: `execute … run <command>` (Java), `return run <command>`. */
const WRAPPERS: ReadonlySet<string> = new Set(['execute', 'return'])

/** How deep wrappers are followed; anything nested deeper is refused to non-admins whatever it runs. */
const MAX_DEPTH = 16

/**
 * The admin-only command word in `command` as the game would read it, if any: a leading `/`,
 * a namespace (`minecraft:op`), case and whitespace do not matter, and every command an
 * `execute … run` or `return run` chain runs is read the same way, at any depth. An `execute`
 * without `run` (Bedrock's older `execute @a ~ ~ ~ <command>`) is refused when any of its words
 * is one. Undefined: a moderator may send it.
 */
export function adminOnlyCommand(command: string): string | undefined {
  return wordsOf(command.toLowerCase().split(/\s+/), 0)
}

function wordsOf(tokens: readonly string[], depth: number): string | undefined {
  const words = tokens.map(commandWord).filter((word) => word !== '')
  const [first] = words
  if (first === undefined) return undefined
  if (ADMIN_ONLY.has(first)) return first
  if (!WRAPPERS.has(first)) return undefined
  if (depth >= MAX_DEPTH) return first
  const runs = words.flatMap((word, at) => (word === 'run' ? [at] : []))
  if (runs.length === 0) return words.find((word) => ADMIN_ONLY.has(word))
  // Each `run` may start the command (a player named `run` only makes this stricter).
  for (const at of runs) {
    const found = wordsOf(words.slice(at + 1), depth + 1)
    if (found) return found
  }
  return undefined
}

/** A word as a command name: slashes before it and a `namespace:` prefix dropped (`/minecraft:op` → `op`). */
function commandWord(token: string): string {
  const bare = token.replace(/^\/+/, '')
  return bare.slice(bare.lastIndexOf(':') + 1)
}
