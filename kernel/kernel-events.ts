import { z } from 'zod'
import { defineEvents, type EventsOf } from './contract-catalogue'

/** The kernel's own events: its lifecycle. */
export const kernelEvents = defineEvents('kernel', {
  /**
   * Every service has started and is ready: the moment to serve the outside world (the bridge
   * answers from here on). Emitted once, by the kernel, for an embedder as for `start`.
   */
  'kernel:ready': z.object({ services: z.array(z.string()).readonly() }),
  /** The kernel is about to stop its services (in reverse start order): stop taking new work. */
  'kernel:stopping': z.object({}),
})

declare module './maps' {
  interface EventMap extends EventsOf<typeof kernelEvents> {}
}
