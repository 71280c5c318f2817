import { describe, expect, it } from 'vitest'
import { APP_INDEX_URL, appFileFor } from './app-protocol'

const dir = '/opt/stride/out/renderer'

describe('app protocol', () => {
  it('maps app URLs to files inside the renderer folder', () => {
    expect(appFileFor(APP_INDEX_URL, dir)).toBe(`${dir}/index.html`)
    expect(appFileFor('stride://app/', dir)).toBe(`${dir}/index.html`)
    expect(appFileFor('stride://app/assets/index-1.js?x=1#y', dir)).toBe(`${dir}/assets/index-1.js`)
  })

  it('keeps dot segments inside the folder (the URL parser resolves them first)', () => {
    expect(appFileFor('stride://app/../../main/index.js', dir)).toBe(`${dir}/main/index.js`)
  })

  it('refuses anything outside it or not the app', () => {
    for (const url of [
      'stride://app/assets/%2e%2e%2f%2e%2e%2fpackage.json',
      'stride://app/a%5c..%5c..%5cx',
      'stride://app/%00',
      'stride://other/index.html',
      'file:///etc/passwd',
      'https://app/index.html',
      'not a url'
    ])
      expect(appFileFor(url, dir), url).toBeNull()
  })
})
