import { join } from 'node:path'

/**
 * This package's root folder (the checkout, or the installed package): where its `plugins/`,
 * `services/web/` assets, `package.json` and `dist/` are. Compiled, this file is dist/lib/.
 */
export const PACKAGE_ROOT = join(__dirname, '..', '..')
