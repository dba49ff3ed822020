import { defineSettings, wholeNumber } from '../../kernel/setting-catalogue'

/**
 * The manager daemon's network address. Reserved for the web server, which runs inside the
 * manager (the web issue): until it lands nothing listens there.
 */
defineSettings('bridge', {
  'web.host': { default: '127.0.0.1', summary: 'the address the manager serves HTTP on (with the web server)' },
  'web.port': { default: 11_325, summary: 'its port', rule: wholeNumber(1, 65_535) },
})
