import { defineSettings, wholeNumber } from '../../kernel/setting-catalogue'

/** The file manager's settings (docs/settings.md). */
export const filesSettings = defineSettings('files', {
  'files.max_text_kb': {
    default: 512,
    summary:
      'the largest file the file manager shows and saves as text, in KiB (larger ones are downloaded and uploaded); saving over HTTP is also bounded by web.max_body_kb',
    rule: wholeNumber(1, 65_536),
  },
})
