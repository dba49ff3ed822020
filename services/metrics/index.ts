import { declaredService, reasonOf, type Service } from '../../kernel'
import { SerialQueue } from '../../lib/serial-queue'
import { querySeries } from '../../lib/series-query'
import type { SamplingSpec } from './contract'
import { HOST_FIELDS, HOST_PEAKS } from './contract'
import { metricsDeclaration } from './declarations'
import { HostSampler, hostSeriesPath } from './host-sampler'

export type * from './contract'

/**
 * Resource metrics: the sampling settings (`metrics.*`), which each server's supervisor gets in
 * its spec (`metrics:sampling`), and the host's samples. In the manager (from `manager:started`)
 * it samples the host into `<data dir>/metrics/host.jsonl` and emits each sample as
 * `metrics:host_sampled`; any process can read the series. The servers' own samples are their
 * supervisors' (services/servers).
 */
export function metricsService(): Service {
  let sampler: HostSampler | undefined
  return {
    ...declaredService(metricsDeclaration),
    async start({ bus, config, logger }) {
      const setting = async (key: string) => (await bus.request('settings:get', { key })).value
      const sampling = async (): Promise<SamplingSpec | undefined> => {
        if ((await setting('metrics.enabled')) !== true) return undefined
        const ms = async (key: string) => Number(await setting(`metrics.${key}`)) * 1000
        return {
          intervalMs: await ms('interval_s'),
          diskIntervalMs: await ms('disk_interval_s'),
          retention: {
            fullRateMs: await ms('retention.full_rate_s'),
            downsampledMs: await ms('retention.downsampled_s'),
            bucketMs: await ms('retention.bucket_s'),
          },
        }
      }
      bus.handle('metrics:sampling', () => sampling())
      bus.handle('metrics:host', () => ({ sample: sampler?.latest }))
      bus.handle('metrics:host_series', (request) =>
        querySeries(hostSeriesPath(config.dataDir), HOST_FIELDS, HOST_PEAKS, request ?? {}),
      )

      let managing = false
      // One restart at a time: two changes at once would each start a sampler, and one would be left running.
      const restarts = new SerialQueue()
      /** (Re)starts the host's sampling with the settings now: at the manager's start and when one changes. */
      const resample = () =>
        restarts.run(async () => {
          sampler?.stop()
          sampler = undefined
          const spec = managing ? await sampling() : undefined
          // The manager may have begun to stop while the settings were read.
          if (!spec || !managing) return
          try {
            sampler = new HostSampler({
              dataDir: config.dataDir,
              spec,
              onSample: (sample) => void bus.emit('metrics:host_sampled', { sample }),
              warn: (message) => logger.warn(message),
            }).start()
          } catch (error) {
            logger.warn(`the host is not sampled: ${reasonOf(error)}`)
          }
        })
      bus.on('manager:started', async () => {
        managing = true
        await resample()
      })
      bus.on('after_setting_update', async ({ key }) => {
        if (managing && (key === 'metrics' || key.startsWith('metrics.'))) await resample()
      })
      bus.on('kernel:stopping', () => {
        managing = false
        sampler?.stop()
      })
    },
    stop() {
      sampler?.stop()
      sampler = undefined
    },
  }
}
