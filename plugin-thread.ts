/**
 * The entry of a plugin thread (one or several plugins), or of the inspector that imports plugin modules for
 * discovery (docs/architecture.md, "Plugins in threads"): a
 * composition root like manager.ts. It hands the plugins service's thread runtime what the
 * plugin's `import … from 'server-manager'` (and `/web`, `/cli`) resolve to, and the web
 * service's part in the thread (its routes and pages), loaded only for a plugin with routers.
 */
import { workerData } from 'node:worker_threads'
import * as sdk from './index'
import { knowErrors } from './kernel/error-catalogue'
import { authErrors } from './services/auth/errors'
import { pluginsErrors } from './services/plugins/errors'
import { runHostThread } from './services/plugins/thread/host-thread'
import { runInspectorThread } from './services/plugins/thread/runtime'
import type { ThreadWeb } from './services/web/contract'
import { webErrors } from './services/web/errors'

// The codes a plugin's own code raises here, where no kernel is (its routes' guards and
// validation, its this.api's argument checks), so their errors carry their status here too.
knowErrors(authErrors, pluginsErrors, webErrors)

const modules = { sdk, web: () => require('./web'), cli: () => require('./cli') }
// An inspector imports plugin modules for discovery; any other thread runs the plugins it is given.
if ((workerData as { inspect?: unknown }).inspect === true) runInspectorThread(modules)
else runHostThread({ ...modules, threadWeb: () => require('./services/web/thread-routes') as ThreadWeb })
