/**
 * The actor of what a game did or what happened to it, observed (a join, a leave, a status
 * change, a crash): `server:<name>`, never whoever's request made a process look (decisions.md
 * section 3 names the actors; this is the game's).
 */
export function serverActor(serverName: string): string {
  return `server:${serverName}`
}
