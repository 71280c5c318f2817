#!/bin/sh
':' //; unset STRIDE_NODE_EXTRA_CA_CERTS; if [ -n "$NODE_EXTRA_CA_CERTS" ]; then STRIDE_NODE_EXTRA_CA_CERTS=$NODE_EXTRA_CA_CERTS; export STRIDE_NODE_EXTRA_CA_CERTS; unset NODE_EXTRA_CA_CERTS; fi; exec node "$0" "$@"
// The installed `stride` command: runs the built CLI (npm run build produces out/main/cli.js).
// The line above is sh, and a no-op string to Node (`node bin/stride.js` runs as well). It starts
// Node without NODE_EXTRA_CA_CERTS: Node 20 parses that CA bundle before it runs a line (40 ms of
// every command where a machine sets it), and Stride opens no TLS connection. The value comes
// back below, before anything starts, so the programs Stride launches see the environment as it was.
const kept = process.env.STRIDE_NODE_EXTRA_CA_CERTS
if (kept !== undefined) {
  process.env.NODE_EXTRA_CA_CERTS = kept
  delete process.env.STRIDE_NODE_EXTRA_CA_CERTS
}
const { existsSync } = require('node:fs')
const { join } = require('node:path')
const cli = join(__dirname, '..', 'out', 'main', 'cli.js')
if (!existsSync(cli)) {
  process.stderr.write('stride: the CLI is not built yet; run "npm run build" in ' + join(__dirname, '..') + '\n')
  process.exit(1)
}
require(cli)
