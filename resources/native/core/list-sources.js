// Lists the core's C sources for binding.gyp (gyp has no globbing).
const { readdirSync } = require('node:fs')
const { join } = require('node:path')
const walk = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(join(dir, e.name)) : e.name.endsWith('.c') ? [join(dir, e.name)] : []
  )
console.log(walk('src').sort().join('\n'))
