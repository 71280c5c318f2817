#!/usr/bin/env node
// The installed `stride` command: runs the built CLI (npm run build produces out/main/cli.js).
const { existsSync } = require('node:fs')
const { join } = require('node:path')
const cli = join(__dirname, '..', 'out', 'main', 'cli.js')
if (!existsSync(cli)) {
  process.stderr.write('stride: the CLI is not built yet; run "npm run build" in ' + join(__dirname, '..') + '\n')
  process.exit(1)
}
require(cli)
