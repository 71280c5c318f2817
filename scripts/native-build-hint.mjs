// What a failed build of the native core lacks, read from node-gyp's output (build-native.mjs
// prints it as the failure's one line). Patterns name the failure itself: node-gyp's ordinary
// lines mention common.gypi and nodedir on every run, so those alone say nothing.
export function nativeBuildHint(out) {
  if (/node_api\.h: No such file|common\.gypi.*(not found|No such file|ENOENT)|Could not find common\.gypi/i.test(out))
    return "Node's headers are missing (Debian: apt-get install nodejs-dev, or set npm's nodedir)"
  if (/brotli\/(encode|decode)\.h: No such file|cannot find -lbrotli(enc|dec)/.test(out))
    return "brotli's development files are missing (Debian: apt-get install libbrotli-dev; Fedora: brotli-devel)"
  const why = /not found: (make|cc|gcc|python3?)|(\bmake\b|\bcc\b|\bgcc\b).*(not found|No such file)/i.exec(out)
  if (why) return `${why[1] ?? why[2]} is missing (Debian: apt-get install build-essential python3)`
  return 'see the compiler output above'
}
