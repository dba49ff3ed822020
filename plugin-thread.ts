/**
 * The entry of a plugin's worker thread (docs/architecture.md, "Plugins in threads"): a
 * composition root like manager.ts. It hands the plugins service's thread runtime what the
 * plugin's `import … from 'server-manager'` (and `/web`, `/cli`) resolve to, and the web
 * service's part in the thread (its routes and pages), loaded only for a plugin with routers.
 */
import * as sdk from './index'
// The catalogues of the codes a plugin's own code raises here (its routes' guards and
// validation, its this.api's argument checks), so their errors carry their status here too.
import './services/auth/errors'
import './services/plugins/errors'
import './services/web/errors'
import { runPluginThread } from './services/plugins/thread/runtime'
import type { ThreadWeb } from './services/web/contract'

void runPluginThread({
  sdk,
  web: () => require('./web'),
  cli: () => require('./cli'),
  threadWeb: () => require('./services/web/thread-routes') as ThreadWeb,
})
