import { defineSettings, wholeNumber } from '../../kernel/setting-catalogue'

/** The web server's settings (docs/settings.md). */
defineSettings('web', {
  'web.enabled': { default: true, summary: 'whether the manager serves the web UI and HTTP API' },
  'web.host': { default: '127.0.0.1', summary: 'the address the manager serves HTTP on' },
  'web.port': { default: 11_325, summary: 'its port', rule: wholeNumber(0, 65_535) },
  'web.max_body_kb': {
    default: 1_024,
    summary: 'the largest JSON or form request body accepted, in KiB (413 past it)',
    rule: wholeNumber(1, 1_048_576),
  },
  'web.max_upload_mb': {
    default: 512,
    summary: 'the largest file accepted in a multipart upload (a world, say), in MiB',
    rule: wholeNumber(1, 65_536),
  },
  'web.trust_proxy': {
    default: false,
    summary: 'trust X-Forwarded-For and X-Forwarded-Proto (only behind a reverse proxy you run)',
  },
})
