import { PluginBase } from 'server-manager'

/**
 * Logs a greeting when it loads, and again when a long-running manager has started. The
 * smallest useful plugin: copy it to start your own.
 */
export default class Greeter extends PluginBase<Greeter> {
  static version = '1.0.0'
  static author = 'server-manager'

  override async onLoad() {
    const greeting = (await this.api.getGlobalSetting('custom.greeting')) ?? 'Hello'
    this.logger.info(`${greeting} from the ${this.name} plugin!`)
  }

  override onManagerStartup() {
    this.logger.info('the manager is up; greeter says hi')
  }
}
