/**
 * Issue 47's done-when: a newcomer's first session on a real program, from Launch to the
 * hottest line and a diagnosis naming the data structures involved. The program is lz4 from
 * the real-program corpus (bench/corpus-programs.mjs builds it from Debian's sources into
 * ~/.cache/stride-corpus) when it is there; CI has no corpus, so otherwise it is minilz
 * (e2e/fixtures/minilz.c: lz4's fast path in miniature, an input buffer and a hash table),
 * compiled here with -g -O2. Both take the same steps: the host's hierarchy by default,
 * "Find hot functions", the top of the ranked picker checked by hand, Start, the hottest line,
 * the Advisor. Screenshots go to e2e/artifacts (looked at).
 */
import { spawnSync } from 'node:child_process'
import { existsSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { formatSize } from '../src/shared/sizes'
import { fixedEnv, ROOT, strideOk, tempDir } from '../src/main/testing/cli-runner'
import { newPage, screenshot } from './support/browser'
import { useWebMode } from './support/web-mode'

const dir = tempDir('e2e-first-session')
const corpus = process.env.STRIDE_CORPUS || join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'stride-corpus')
const lz4 = join(corpus, 'src', 'lz4-1.9.4', 'programs', 'lz4')
const lz4Input = join(corpus, 'inputs', 'text-1m.txt')
const useCorpus = existsSync(lz4) && existsSync(lz4Input)

/** What the journey runs: the program, its arguments, and the source file its hot function is in. */
function subject(): { name: string; program: string; args: string; file: RegExp } {
  if (useCorpus) {
    console.log(`corpus: using lz4 (${lz4})`)
    return { name: 'lz4', program: lz4, args: `-1 -f ${lz4Input} ${join(dir, 'out.lz4')}`, file: /lz4\.c$/ }
  }
  const program = join(dir, 'minilz')
  console.log('corpus not built: using e2e/fixtures/minilz.c (bench/corpus-programs.mjs builds the corpus)')
  const cc = spawnSync('cc', ['-g', '-O2', '-o', program, join(ROOT, 'e2e', 'fixtures', 'minilz.c')], { encoding: 'utf8' })
  if (cc.status !== 0) throw new Error(cc.stderr)
  // 1 MiB of words from a 3,000-word vocabulary: text with repeats at every distance.
  let seed = 7
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31)
  const words = Array.from({ length: 3000 }, () => Array.from({ length: 2 + (next() % 8) }, () => String.fromCharCode(97 + (next() % 26))).join(''))
  const parts: string[] = []
  for (let n = 0; n < 1 << 20; ) {
    const w = words[next() % words.length]!
    parts.push(w)
    n += w.length + 1
  }
  writeFileSync(join(dir, 'words.txt'), parts.join(' '))
  return { name: 'minilz', program, args: `${join(dir, 'words.txt')} ${join(dir, 'out.lz')}`, file: /minilz\.c$/ }
}

const host = JSON.parse(strideOk(['hierarchy', '--json'], fixedEnv(tempDir('e2e-first-session-host')))) as { levels: Array<{ name: string; size: number }> }
let target: ReturnType<typeof subject>
const web = useWebMode(() => {
  target = subject()
})

describe("a newcomer's first session on a real program", () => {
  it('Launch → ranked picker → hottest line → a diagnosis naming the data structures that evict each other', async () => {
    const { page, problems } = await newPage(web.browser)
    await page.goto(web.server.url)
    await page.getByTestId('launch-button').click()
    await page.getByTestId('source-custom').check()
    await page.getByTestId('program-path').fill(target.program)
    await page.getByTestId('program-args').fill(target.args)
    // The host's hierarchy is the default.
    await page.getByTestId('host-caches').waitFor()
    expect(await page.getByTestId('cache-size-0').inputValue()).toBe(formatSize(host.levels[0]!.size))
    expect(await page.getByTestId('cache-size-1').inputValue()).toBe(formatSize(host.levels[1]!.size))

    // What is hot: one whole-program pass ranks the picker.
    await page.getByTestId('find-hot').click({ timeout: 60_000 })
    const hottest = page.getByTestId('trace-hottest')
    await hottest.waitFor({ timeout: 400_000 })
    const top = ((await hottest.textContent()) ?? '').replace(/^Trace the hottest: /, '')
    const boxes = page.locator('[data-testid^="function-"][type="checkbox"]')
    const ranked = await boxes.evaluateAll((els) => els.map((e) => e.getAttribute('data-testid')!.slice('function-'.length)))
    expect(ranked[0]).toBe(top)
    expect(await page.getByTestId(`hot-count-${top}`).textContent()).toMatch(/^[\d,]+ D1 misses · [\d.]+%$/)
    await screenshot(page, `first-session-1-ranked-${target.name}`)

    // Picked by hand from the top of the ranked list, then Start.
    // Nothing is chosen for a program of one's own: the user checks the top row.
    expect(await page.locator('[data-testid^="function-"][type="checkbox"]:checked').count()).toBe(0)
    await boxes.first().check()
    await page.getByTestId('start-trace').click()
    await page.getByTestId('workspace-tabs').waitFor({ timeout: 400_000 })
    await expect.poll(() => page.getByTestId('session-summary').locator('.fn-tag').allTextContents(), { timeout: 60_000 }).toEqual([top])

    // The source opens on the hottest line of the traced function's file.
    const view = page.getByTestId('source-view')
    await expect.poll(() => view.getAttribute('data-hottest-line'), { timeout: 120_000 }).toMatch(/^\d+$/)
    const fn = page.getByTestId('code-function').filter({ hasText: top }).first()
    await fn.click()
    const hot = await view.getAttribute('data-hottest-line')
    await expect.poll(() => view.getAttribute('data-selected-line')).toBe(hot)
    expect(await view.getAttribute('data-file')).toMatch(target.file)
    await screenshot(page, `first-session-2-hottest-line-${target.name}`)

    // The Advisor: a diagnosis names the data structures whose lines evict each other (the
    // hash table among them) and says what to change.
    await page.getByTestId('tab-advisor').click()
    await page.getByTestId('advice-item').first().waitFor({ timeout: 180_000 })
    const texts = await page.getByTestId('advice-item').allTextContents()
    const story = texts.find((t) => /in D1, .+'s lines are evicted by .+ \d+%/.test(t) && /hashTable/.test(t))
    expect(story, texts.join('\n---\n')).toBeDefined()
    expect(story).toMatch(/evict each other|takes another \d+% of its lines|evicts .+'s lines before they are used again/)
    expect(story).toMatch(/Shrink|shrink|smaller/)
    // Every diagnosis card has its evidence; none calls a whole-line sequential run unpredictable.
    for (const t of texts) if (/spatial reuse 1\.00/.test(t) && /\d+% of streams\)/.test(t)) expect(t).not.toMatch(/cannot predict/)
    await screenshot(page, `first-session-3-advisor-${target.name}`)
    expect(problems).toEqual([])
    await page.close()
  }, 900_000)
})
