import { defineSettings, wholeNumber } from '../../kernel/setting-catalogue'

/** Resource sampling: each server's by its supervisor, the host's by the manager (docs/settings.md). */
export const metricsSettings = defineSettings('metrics', {
  'metrics.enabled': {
    default: true,
    summary:
      "sample each running server's CPU, memory and disk use (by its supervisor, from its next start) and the host's (by the manager)",
  },
  'metrics.interval_s': {
    default: 5,
    summary: 'seconds between two samples (a server takes it at its next start, the host at once)',
    rule: wholeNumber(1, 3_600),
  },
  'metrics.disk_interval_s': {
    default: 60,
    summary: "seconds between two walks of a server's directory for its size on disk (a walk reads every entry)",
    rule: wholeNumber(1, 86_400),
  },
  'metrics.retention.full_rate_s': {
    default: 86_400,
    summary: 'samples are kept as taken for this long (a day), then as averages and peaks per bucket',
    rule: wholeNumber(1, 31_536_000),
  },
  'metrics.retention.bucket_s': {
    default: 300,
    summary: 'the span one downsampled point stands for (5 minutes)',
    rule: wholeNumber(1, 86_400),
  },
  'metrics.retention.downsampled_s': {
    default: 2_592_000,
    summary: 'downsampled points are kept this long (30 days), then deleted',
    rule: wholeNumber(1, 315_360_000),
  },
})
