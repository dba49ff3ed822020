import { PluginBase } from 'server-manager'
import { defineRoute, Router, z } from 'server-manager/web'

/**
 * A native page (no HTML: a JSON component tree the web UI draws), listed in the sidebar under
 * "From plugins" for admins, with a form that posts to this plugin's API and a live console.
 */
export default class NativePageExample extends PluginBase<NativePageExample> {
  static version = '1.0.0'
  static author = 'server-manager'

  override getRouters() {
    const router = new Router()
    defineRoute(
      router,
      {
        method: 'get',
        path: '/native_page_example/ui',
        name: 'native_page_example_ui',
        summary: 'Component showcase',
        tags: ['plugin-ui-native'],
        access: 'admin',
        query: z.object({ server: z.string().optional() }),
      },
      async (_ctx, { query }) => this.page(query.server),
    )
    defineRoute(
      router,
      {
        method: 'post',
        path: '/api/native_page_example/submit',
        name: 'native_page_example_submit',
        summary: 'Receive the showcase form',
        access: 'admin',
        body: z.record(z.string(), z.unknown()),
      },
      async (_ctx, { body }) => {
        await this.api.sendEvent('native_page_example:submitted', body)
        return { status: 'success', message: `Received: ${Object.keys(body).length} fields`, data: body }
      },
    )
    return [router]
  }

  async page(server: string | undefined) {
    const servers = await this.api.listServers()
    const running = servers.filter((s) => s.status === 'running').length
    return {
      websocketSubscriptions: ['server_log:{server}'],
      type: 'Container',
      children: [
        { type: 'Text', props: { content: 'Component showcase', variant: 'h1' } },
        {
          type: 'Tabs',
          props: { activeTab: 'form' },
          children: [
            {
              type: 'Tab',
              props: { id: 'form', label: 'Form' },
              children: [
                {
                  type: 'Card',
                  props: { title: 'Send something' },
                  children: [
                    { type: 'Input', props: { id: 'message', label: 'Message', placeholder: 'Type a message' } },
                    {
                      type: 'Select',
                      props: {
                        id: 'colour',
                        label: 'Colour',
                        options: [
                          { label: 'Green', value: 'green' },
                          { label: 'Blue', value: 'blue' },
                        ],
                      },
                    },
                    { type: 'Switch', props: { id: 'loud', label: 'Loud', defaultChecked: true } },
                    { type: 'Checkbox', props: { id: 'twice', label: 'Twice' } },
                    {
                      type: 'Button',
                      props: {
                        label: 'Submit',
                        icon: 'Save',
                        onClickAction: {
                          type: 'api_call',
                          endpoint: '/api/native_page_example/submit',
                          includeFormState: true,
                        },
                      },
                    },
                  ],
                },
              ],
            },
            {
              type: 'Tab',
              props: { id: 'display', label: 'Display' },
              children: [
                {
                  type: 'Row',
                  children: [
                    { type: 'Badge', props: { content: 'success', variant: 'success' } },
                    { type: 'Badge', props: { content: 'warning', variant: 'warning' } },
                    {
                      type: 'StatusIndicator',
                      props: { status: running > 0 ? 'running' : 'stopped', text: `${running} running` },
                    },
                    { type: 'Icon', props: { name: 'Activity' } },
                  ],
                },
                {
                  type: 'CodeBlock',
                  props: {
                    title: 'Servers',
                    content: JSON.stringify(
                      servers.map((s) => s.name),
                      null,
                      2,
                    ),
                  },
                },
                { type: 'Link', props: { href: '/docs/', label: 'API docs', icon: 'Info' } },
                { type: 'Divider' },
                {
                  type: 'Table',
                  props: {
                    headers: ['Server', 'Status'],
                    rows: servers.map((s) => [
                      s.name,
                      {
                        type: 'StatusIndicator',
                        props: { status: s.status === 'running' ? 'running' : 'stopped', text: s.status },
                      },
                    ]),
                  },
                },
                { type: 'Accordion', props: { title: 'More' }, children: ['Accordions hold anything.'] },
                {
                  type: 'Button',
                  props: {
                    label: 'Open a modal',
                    variant: 'secondary',
                    onClickAction: { type: 'open_modal', modalId: 'hello' },
                  },
                },
                {
                  type: 'Modal',
                  props: { id: 'hello', title: 'Hello' },
                  children: [
                    { type: 'Text', props: { content: 'A modal.' } },
                    { type: 'Button', props: { label: 'Close', onClickAction: { type: 'close_modal' } } },
                  ],
                },
              ],
            },
            {
              type: 'Tab',
              props: { id: 'monitor', label: 'Monitoring' },
              children: [
                {
                  type: 'Row',
                  children: [
                    {
                      type: 'StatCard',
                      props: { label: 'Servers', value: servers.length, icon: 'Terminal', trend: 'neutral' },
                    },
                    {
                      type: 'StatCard',
                      props: { label: 'Running', value: running, icon: 'Play', trend: running ? 'up' : 'down' },
                    },
                  ],
                },
                {
                  type: 'Chart',
                  props: {
                    type: 'area',
                    xAxis: 'day',
                    data: [1, 2, 3, 4, 5].map((day) => ({ day, backups: day * 2, players: (day * 7) % 11 })),
                    series: [
                      { dataKey: 'backups', name: 'Backups', color: '#2a7a4b' },
                      { dataKey: 'players', name: 'Players', color: '#3a6fd8' },
                    ],
                  },
                },
                {
                  type: 'Text',
                  props: { content: server ? `Console of ${server}` : 'No server selected', variant: 'h3' },
                },
                { type: 'LogViewer', props: { socketTopic: 'server_log:{server}', height: 240 } },
              ],
            },
          ],
        },
      ],
    }
  }
}
