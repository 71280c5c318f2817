/**
 * One web-mode server and one Chromium per test file: registers beforeAll/afterAll and
 * hands both out once started (`const web = useWebMode(); ... web.server.url`).
 */
import { afterAll, beforeAll } from 'vitest'
import type { Browser } from 'playwright-core'
import { launchChromium } from './browser'
import { startWebServer, type WebServer } from './serve'

export interface WebMode {
  readonly server: WebServer
  readonly browser: Browser
}

export function useWebMode(setup?: () => void | Promise<void>, timeoutMs = 240_000, env?: () => NodeJS.ProcessEnv): WebMode {
  let server: WebServer | undefined
  let browser: Browser | undefined
  beforeAll(async () => {
    await setup?.()
    server = await startWebServer(60_000, env?.())
    browser = await launchChromium()
  }, timeoutMs)
  afterAll(async () => {
    await browser?.close()
    await server?.stop()
  })
  return {
    get server() {
      if (!server) throw new Error('the web-mode server has not started')
      return server
    },
    get browser() {
      if (!browser) throw new Error('Chromium has not started')
      return browser
    }
  }
}
