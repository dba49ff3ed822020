/**
 * The entry of a plugin's worker thread, or of the inspector that imports plugin modules for
 * discovery (docs/architecture.md, "Plugins in threads"): a
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
import { workerData } from 'node:worker_threads'
import { runInspectorThread, runPluginThread } from './services/plugins/thread/runtime'
import type { ThreadWeb } from './services/web/contract'

const modules = { sdk, web: () => require('./web'), cli: () => require('./cli') }
// An inspector imports plugin modules for discovery; any other thread runs one plugin.
if ((workerData as { inspect?: unknown }).inspect === true) runInspectorThread(modules)
else
  void runPluginThread({
    ...modules,
    threadWeb: () => require('./services/web/thread-routes') as ThreadWeb,
  })
