export {
  type ActionOutcome,
  type ActionResult,
  type ActionSpec,
  isVeto,
  performAction,
  reportObserved,
  type Veto,
} from './action'
export {
  type ActionDeclaration,
  type ActionEntry,
  type ActionSummary,
  type ActionsOf,
  defineActions,
} from './action-catalogue'
export type {
  BatchMember,
  BatchOrder,
  BatchOutcome,
  CommandHandler,
  EmitOptions,
  EventMeta,
  Identifier,
  Listener,
  ListenerBatch,
  ListenOptions,
  Preparer,
  Recorder,
  RequestMeta,
  RequestOptions,
} from './bus'
export { Bus } from './bus'
export { BusScope } from './bus-scope'
export { Catalogue } from './catalogue'
export type { ApiDoor, ApiParam, CommandDoors, DoorAccess, HostRoute, HttpDoor, ServerRight } from './command-doors'
export { doorMessage, queryFlag, SERVER_RIGHTS } from './command-doors'
export { type CallContext, Chain, currentContext, runInContext } from './context'
export {
  type CommandSpec,
  type CommandsOf,
  command,
  defineCommands,
  defineEvents,
  type EventsOf,
  empty,
  type MessageEntry,
} from './contract-catalogue'
export { deepFreeze } from './deep-freeze'
export { type DispatchFailure, DispatchReport, type DispatchSuccess } from './dispatch-report'
export { type Disposable, DisposableStack } from './disposable'
export {
  type CatalogueEntry,
  defineErrors,
  type ErrorCode,
  type ErrorMap,
  type ErrorMapOf,
  type ErrorParams,
  type ErrorSpec,
  errorSpec,
  knowErrors,
} from './error-catalogue'
export {
  errorLine,
  isDiskFull,
  isSmError,
  reasonOf,
  SmError,
  toSmError,
  unchangedOnFullDisk,
  type WireError,
} from './errors'
export {
  BusToken,
  ConfigToken,
  createKernel,
  type Kernel,
  type KernelOptions,
  type KernelState,
  LoggerToken,
} from './kernel'
export { listenerError } from './listener-error'
export { type LogFields, type Logger, silentLogger } from './logger'
export type {
  ActionEvents,
  ActionMap,
  ActionName,
  CommandMap,
  CommandName,
  CommandPayload,
  CommandReply,
  CustomEventName,
  EventMap,
  EventName,
  KernelConfig,
  PayloadOf,
} from './maps'
export { Registry } from './registry'
export {
  declaredService,
  type Service,
  type ServiceContext,
  type ServiceDeclaration,
  type ServiceReport,
} from './service'
export {
  defaultOf,
  defineSettings,
  isMarkedSecret,
  markSecretKey,
  type SettingContext,
  type SettingEntry,
  type SettingRule,
  type SettingSpec,
  wholeNumber,
} from './setting-catalogue'
export { isThenable, timeBox } from './time-box'
export { createToken, type Token } from './token'
