import { defineErrors, type ErrorMapOf, spec } from '../../kernel/error-catalogue'

/** The settings service's error codes (docs/errors.md). */
export const settingsErrors = defineErrors('settings', {
  SM_ERR_SETTINGS_INVALID_KEY: spec<{ key: string; reason: string }>({
    status: 422,
    exit: 64,
    when: 'A setting key is empty or is not a dot path of names.',
    message: (p) =>
      `'${p.key}' is not a valid setting key: ${p.reason}. Keys are dot paths of letters, digits, '_' and '-', such as 'web.port' or 'custom.greeting'.`,
  }),
  SM_ERR_SETTINGS_UNKNOWN_KEY: spec<{ key: string; hint: string }>({
    status: 404,
    exit: 64,
    when: "A setting key that no service declares, outside 'custom.'.",
    message: (p) =>
      `There is no setting '${p.key}'.${p.hint} 'server-manager setting list' shows them all; plugin and script data goes under 'custom.<key>'.`,
    web: (p) =>
      `There is no setting '${p.key}'.${p.hint} The Settings page shows them all; plugin and script data goes under 'custom.<key>'.`,
  }),
  SM_ERR_SETTINGS_INVALID_VALUE: spec<{ key: string; reason: string }>({
    status: 422,
    exit: 64,
    when: 'A setting value has the wrong type or cannot be stored as JSON.',
    message: (p) => `The value for '${p.key}' is invalid: ${p.reason}. Nothing was changed.`,
  }),
  SM_ERR_SETTINGS_NOT_FOUND: spec<{ key: string }>({
    status: 404,
    exit: 1,
    when: "A 'custom.' key was read or unset that holds no value.",
    message: (p) => `No value is set for '${p.key}'. Set it with: server-manager setting set ${p.key} <value>`,
    web: (p) => `No value is set for '${p.key}'. Set it on the Settings page.`,
  }),
  SM_ERR_SETTINGS_UPDATE_CANCELLED: spec<{ key: string; by: string; reason: string }>({
    status: 409,
    exit: 1,
    when: 'A before_setting_update listener vetoed the change.',
    message: (p) => `The change to '${p.key}' was cancelled by '${p.by}': ${p.reason}. Nothing was changed.`,
  }),
})

declare module '../../kernel/error-catalogue' {
  interface ErrorMap extends ErrorMapOf<typeof settingsErrors> {}
}
