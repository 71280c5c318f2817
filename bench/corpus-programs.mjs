// The real-program corpus of bench/corpus.mjs: which programs, how they are fetched and built,
// their fixed inputs and the function a user would pick; and the cache they are simulated with,
// Cachegrind's own D1 and LL on this host. Fetched and built on first use into
// the corpus folder, never into the repository.
//
// Sources come from Debian source packages through a private apt configuration: a deb-src list
// derived from this machine's own `deb` entries (the same archive and suites), with its own
// lists folder, so the machine's apt state is left as it was. Builds are `-g -O2`.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'

export function corpusDir() {
  return process.env.STRIDE_CORPUS || join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'stride-corpus')
}

/** Cachegrind's own hierarchy on this host (what a user comparing the two runs), as Stride levels. */
export function cachegrindLevels() {
  const r = spawnSync('valgrind', ['--tool=cachegrind', '--cachegrind-out-file=/dev/null', '-v', '/bin/true'], { encoding: 'utf8' })
  const level = (name) => {
    const m = new RegExp(`${name}: ([\\d,]+) B, (\\d+)-way, (\\d+) B lines`).exec(r.stderr)
    if (!m) throw new Error(`cannot read Cachegrind's ${name} from its -v output`)
    return `${name}:${m[1].replaceAll(',', '')}:${m[2]}:${m[3]}`
  }
  return [level('D1'), level('LL')]
}

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 << 20, ...opts })
  if (r.error || r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${(r.error?.message ?? '') + (r.stderr ?? '').slice(-1500)}`)
  return r.stdout
}

/** deb-src lines for this machine's own archive entries (one-line and deb822 formats). */
export function debSrcLines() {
  const lines = []
  const oneLine = (text) => {
    for (const l of text.split('\n')) {
      const m = /^\s*deb\s+(\[[^\]]*\]\s+)?(\S+)\s+(\S+)\s+(.+)$/.exec(l)
      if (m) lines.push(`deb-src ${m[1] ?? ''}${m[2]} ${m[3]} ${m[4].trim()}`)
    }
  }
  const deb822 = (text) => {
    for (const stanza of text.split(/\n\s*\n/)) {
      const field = (name) => new RegExp(`^${name}:\\s*(.+)$`, 'mi').exec(stanza)?.[1].trim()
      if (!(field('Types') ?? '').split(/\s+/).includes('deb') || /^Enabled:\s*no/im.test(stanza)) continue
      const signed = field('Signed-By')
      const opts = signed && !signed.includes('\n') ? `[signed-by=${signed}] ` : ''
      for (const uri of (field('URIs') ?? '').split(/\s+/).filter(Boolean))
        for (const suite of (field('Suites') ?? '').split(/\s+/).filter(Boolean)) lines.push(`deb-src ${opts}${uri} ${suite} ${field('Components') ?? 'main'}`)
    }
  }
  if (existsSync('/etc/apt/sources.list')) oneLine(readFileSync('/etc/apt/sources.list', 'utf8'))
  const parts = '/etc/apt/sources.list.d'
  if (existsSync(parts))
    for (const f of readdirSync(parts).sort()) {
      if (f.endsWith('.list')) oneLine(readFileSync(join(parts, f), 'utf8'))
      else if (f.endsWith('.sources')) deb822(readFileSync(join(parts, f), 'utf8'))
    }
  if (lines.length === 0) throw new Error('no deb line in /etc/apt: the corpus needs a Debian archive to fetch source packages from')
  return lines
}

/** The unpacked source tree of a Debian source package (fetched and unpacked once). */
function sourceTree(dir, pkg, log) {
  const src = join(dir, 'src')
  mkdirSync(src, { recursive: true })
  const found = () => readdirSync(src).find((d) => d.startsWith(`${pkg}-`) && statSync(join(src, d)).isDirectory())
  let tree = found()
  if (tree) return join(src, tree)
  const apt = join(dir, 'apt')
  const lists = join(apt, 'lists')
  mkdirSync(join(lists, 'partial'), { recursive: true })
  const opts = [
    '-o', `Dir::Etc::sourcelist=${join(apt, 'sources.list')}`,
    '-o', 'Dir::Etc::sourceparts=-',
    '-o', `Dir::State::Lists=${lists}`,
    '-o', 'APT::Get::List-Cleanup=0'
  ]
  if (!existsSync(join(apt, 'updated'))) {
    writeFileSync(join(apt, 'sources.list'), debSrcLines().join('\n') + '\n')
    log(`corpus: apt-get update (private deb-src list in ${apt})`)
    run('apt-get', [...opts, 'update', '-qq'])
    writeFileSync(join(apt, 'updated'), '')
  }
  log(`corpus: apt-get source ${pkg}`)
  run('apt-get', [...opts, 'source', '--download-only', '-qq', pkg], { cwd: src })
  const dsc = readdirSync(src).find((f) => f.startsWith(`${pkg}_`) && f.endsWith('.dsc'))
  if (!dsc) throw new Error(`apt-get source ${pkg} left no .dsc in ${src}`)
  run('dpkg-source', ['-x', '--skip-debianization', dsc], { cwd: src })
  tree = found()
  if (!tree) throw new Error(`dpkg-source -x ${dsc} left no ${pkg}-* folder in ${src}`)
  return join(src, tree)
}

/** A deterministic pseudo-random sequence (the inputs must be the same on every machine). */
function lcg(seed) {
  let s = seed >>> 0
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32
}

function inputs(dir, trees) {
  const at = join(dir, 'inputs')
  mkdirSync(at, { recursive: true })
  const file = (name, make) => {
    const p = join(at, name)
    if (!existsSync(p)) writeFileSync(p, make())
    return p
  }
  // Text: the C sources of the corpus packages (sorted paths), repeated to size: what a
  // compressor is given in practice, and the same bytes wherever the same versions are built.
  const text = (bytes) => () => {
    const files = []
    const walk = (d) => {
      for (const e of readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
        const p = join(d, e.name)
        if (e.isDirectory()) walk(p)
        else if (/\.(c|h|cpp)$/.test(e.name)) files.push(p)
      }
    }
    for (const t of trees) walk(t)
    const seed = Buffer.concat(files.map((f) => readFileSync(f)))
    const out = Buffer.alloc(bytes)
    for (let o = 0; o < bytes; o += seed.length) seed.copy(out, o, 0, Math.min(seed.length, bytes - o))
    return out
  }
  const numbers = () => {
    const r = lcg(20)
    return Array.from({ length: 20000 }, () => String(Math.floor(r() * 1e9) - 5e8)).join('\n') + '\n'
  }
  const json = () => {
    const r = lcg(7)
    const word = () => Array.from({ length: 3 + Math.floor(r() * 8) }, () => String.fromCharCode(97 + Math.floor(r() * 26))).join('')
    const items = Array.from({ length: 2500 }, (_, i) => ({
      id: i,
      name: word(),
      score: Math.round(r() * 1e6) / 100,
      tags: Array.from({ length: Math.floor(r() * 5) }, word),
      attrs: Object.fromEntries(Array.from({ length: 1 + Math.floor(r() * 4) }, () => [word(), Math.floor(r() * 1000)]))
    }))
    return JSON.stringify({ items }, null, 1)
  }
  // Lua: tables as hash maps and arrays, strings, sorting: an interpreter's irregular accesses.
  const lua = () => `local t = {}
for i = 1, 20000 do t["k" .. (i * 7919 % 20000)] = i end
local a = {}
for k, v in pairs(t) do a[#a + 1] = v * 3 % 1000 end
table.sort(a)
local s = 0
for i = 1, #a, 3 do s = s + a[i] end
local words = {}
for w in string.gmatch(string.rep("the quick brown fox jumps over the lazy dog ", 1500), "%a+") do words[w] = (words[w] or 0) + 1 end
print(s, words.fox)
`
  return {
    text10m: file('text-10m.txt', text(10 << 20)),
    text1m: file('text-1m.txt', text(1 << 20)),
    text512k: file('text-512k.txt', text(512 << 10)),
    numbers: file('numbers-20k.txt', numbers),
    json: file('items.json', json),
    lua: file('tables.lua', lua)
  }
}

/** Builds what is missing and returns the corpus: { name, program, args, cwd, functions }. */
export function prepareCorpus(dir, log = () => {}) {
  mkdirSync(dir, { recursive: true })
  const cflags = '-g -O2'
  const built = (tree, rel, build) => {
    const p = join(tree, rel)
    if (!existsSync(p)) {
      log(`corpus: building ${p}`)
      build()
    }
    return p
  }
  const lz4 = sourceTree(dir, 'lz4', log)
  const zlib = sourceTree(dir, 'zlib', log)
  const bzip2 = sourceTree(dir, 'bzip2', log)
  const lua = sourceTree(dir, 'lua5.4', log)
  const jsoncpp = sourceTree(dir, 'libjsoncpp', log)
  const lz4Bin = built(lz4, 'programs/lz4', () => run('make', ['-C', join(lz4, 'programs'), 'lz4', `CFLAGS=${cflags}`]))
  const minigzip = built(zlib, 'minigzip', () => {
    run('./configure', ['--static'], { cwd: zlib, env: { ...process.env, CFLAGS: cflags } })
    run('make', ['minigzip'], { cwd: zlib })
  })
  const bzip2Bin = built(bzip2, 'bzip2', () => run('make', ['-C', bzip2, 'bzip2', `CFLAGS=${cflags} -D_FILE_OFFSET_BITS=64`]))
  const luaBin = built(lua, 'src/lua', () => run('make', ['-C', join(lua, 'src'), 'linux', 'MYCFLAGS=-g']))
  // jsoncpp's own test runner (parse, write, re-parse a JSON file): std::map, std::string, the heap.
  const jsonBin = built(jsoncpp, 'jsontestrunner', () => {
    const lib = readdirSync(join(jsoncpp, 'src', 'lib_json')).filter((f) => f.endsWith('.cpp')).map((f) => join('src', 'lib_json', f))
    run('g++', [...cflags.split(' '), '-Iinclude', ...lib, join('src', 'jsontestrunner', 'main.cpp'), '-o', 'jsontestrunner'], { cwd: jsoncpp })
  })
  const input = inputs(dir, [lz4, zlib, bzip2, lua, jsoncpp])
  const out = join(dir, 'out')
  mkdirSync(out, { recursive: true })
  return [
    { name: 'sort', program: '/usr/bin/sort', args: ['-n', input.numbers], cwd: out, functions: null },
    { name: 'gzip', program: '/usr/bin/gzip', args: ['-c', '-6', input.text1m], cwd: out, functions: null },
    { name: 'lz4', program: lz4Bin, args: ['-1', '-f', input.text10m, 'text.lz4'], cwd: out, functions: 'LZ4_compress_fast_extState_fastReset' },
    { name: 'minigzip', program: minigzip, args: ['-c', input.text1m], cwd: out, functions: 'longest_match' },
    { name: 'bzip2', program: bzip2Bin, args: ['-c', '-9', input.text512k], cwd: out, functions: 'mainSort' },
    { name: 'lua', program: luaBin, args: [input.lua], cwd: out, functions: 'luaH_get' },
    { name: 'jsoncpp', program: jsonBin, args: [input.json], cwd: out, functions: 'Json::OurReader::readToken' }
  ]
}
