import { homedir } from 'node:os'
import { join, resolve } from 'node:path'

/** The data directory: `$SM_DATA_DIR`, else `~/.server-manager/`. Not created here (first use creates it). */
export function resolveDataDir(env: NodeJS.ProcessEnv = process.env): string {
  const configured = env.SM_DATA_DIR?.trim()
  return configured ? resolve(configured) : join(homedir(), '.server-manager')
}
