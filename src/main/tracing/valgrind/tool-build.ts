/**
 * Builds Stride's Valgrind tool (resources/native/valgrind-tool) on first use, into the user's
 * cache directory, against the Valgrind development files the machine has (Debian/Ubuntu ship
 * them in `valgrind`, Fedora in `valgrind-devel`). One build per source and Valgrind version;
 * a build lands in a private folder and is renamed into place, so concurrent traces never see
 * half of one.
 *
 * The tool is started without the `valgrind` launcher (the core is told its name with --tool),
 * so the traced program's environment is exactly what it gets under `valgrind --tool=cachegrind`:
 * no VALGRIND_LIB, which the launcher would need and the program would see.
 */
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, symlinkSync } from 'node:fs'
import { arch, platform } from 'node:os'
import { dirname, join } from 'node:path'
import { cacheDir, projectRoot, which } from '../../paths'

export interface StrideTool {
  /** The tool executable (Valgrind's core linked with st_main.c). */
  tool: string
  /** vgpreload_stride: the allocator wrappers, preloaded when heap blocks are tracked. */
  preload: string
  /** What the launcher would have put in the environment (VALGRIND_LAUNCHER, the distribution's wrapper variables). */
  env: Record<string, string>
  /** The `valgrind` command found on PATH: what a shell puts in `_` when it runs Cachegrind. */
  shellCommand: string
  /**
   * The distribution's `valgrind` is a shell script (Debian's sets three variables, and its
   * shell exports PWD and orders the environment): the tool is started through that script, so
   * the program's environment is byte for byte what it is under Cachegrind.
   */
  wrapper: string | null
}

/** The command that starts the tool with `args` (Valgrind's options, the program and its arguments). */
export function toolCommand(tool: StrideTool, args: string[]): { command: string; args: string[] } {
  // The script ends with `exec $0.bin "$@"`: sourced with $0 = DIR/stride it runs DIR/stride.bin.
  if (tool.wrapper) return { command: '/bin/sh', args: ['-c', `. '${tool.wrapper.replace(/'/g, `'\\''`)}'`, join(dirname(tool.tool), 'stride'), ...args] }
  return { command: tool.tool, args }
}

export type ToolBuild = { ok: true; tool: StrideTool } | { ok: false; reason: string }

const SOURCES = ['st_main.c', 'st_preload.c', 'st_protocol.h']
const LIB_DIRS = ['/usr/lib/x86_64-linux-gnu/valgrind', '/usr/lib64/valgrind', '/usr/lib/valgrind', '/usr/libexec/valgrind']
const DEV_PACKAGE = 'install Valgrind\'s development files (Debian/Ubuntu: apt-get install valgrind; Fedora: dnf install valgrind-devel)'

let cached: ToolBuild | null = null

export function toolSourceDir(): string {
  return join(projectRoot(), 'resources', 'native', 'valgrind-tool')
}


/**
 * The launcher binary and the variables its distribution's wrapper sets. Debian's
 * /usr/bin/valgrind is a shell script that sets three variables and execs valgrind.bin: the
 * traced program sees them under Cachegrind, so it must see them under Stride.
 */
export function valgrindLauncher(): { launcher: string; env: Record<string, string>; wrapper: string | null; command: string } | null {
  const found = which('valgrind')
  if (!found) return null
  const head = readFileSync(found).subarray(0, 4096).toString('latin1')
  if (!head.startsWith('#!')) return { launcher: found, env: {}, wrapper: null, command: found }
  const bin = `${found}.bin`
  if (!existsSync(bin)) return null
  // Only a wrapper that execs $0.bin can be reused to start the tool.
  if (!/exec \$0\.bin "\$@"/.test(head)) return { launcher: bin, env: {}, wrapper: null, command: found }
  return { launcher: bin, env: {}, wrapper: found, command: found }
}

/** Builds (once per process, once per version on disk) or explains why not. */
export function strideValgrindTool(): ToolBuild {
  if (cached) return cached
  cached = build()
  return cached
}

function build(): ToolBuild {
  if (platform() !== 'linux' || arch() !== 'x64') return { ok: false, reason: `Stride's Valgrind tool is built for x86-64 Linux, not ${platform()}/${arch()}` }
  const launcher = valgrindLauncher()
  if (!launcher) return { ok: false, reason: 'Valgrind is not installed (Debian: apt-get install valgrind)' }
  const include = '/usr/include/valgrind'
  if (!existsSync(join(include, 'pub_tool_basics.h'))) return { ok: false, reason: `${include}/pub_tool_basics.h is missing: ${DEV_PACKAGE}` }
  const lib = LIB_DIRS.find((d) => existsSync(join(d, 'libcoregrind-amd64-linux.a')))
  if (!lib) return { ok: false, reason: `libcoregrind-amd64-linux.a is missing: ${DEV_PACKAGE}` }

  const src = toolSourceDir()
  const hash = createHash('sha256')
  for (const f of SOURCES) hash.update(readFileSync(join(src, f)))
  // A Valgrind upgrade changes the core the tool links: rebuild.
  const core = statSync(join(lib, 'libcoregrind-amd64-linux.a'))
  hash.update(`layout 2:${core.size}:${core.mtimeMs}:${launcher.launcher}`)
  const dir = join(cacheDir(), 'valgrind-tool', hash.digest('hex').slice(0, 16))
  const tool: StrideTool = {
    tool: join(dir, 'stride-amd64-linux'),
    preload: join(dir, 'vgpreload_stride-amd64-linux.so'),
    env: { ...launcher.env, VALGRIND_LAUNCHER: launcher.launcher },
    shellCommand: launcher.command,
    wrapper: launcher.wrapper
  }
  if (existsSync(tool.tool) && existsSync(tool.preload)) return { ok: true, tool }

  mkdirSync(join(cacheDir(), 'valgrind-tool'), { recursive: true })
  const work = mkdtempSync(join(cacheDir(), 'valgrind-tool', 'building-'))
  try {
    const cc = process.env.CC || 'cc'
    const defines = ['-DVGA_amd64=1', '-DVGO_linux=1', '-DVGP_amd64_linux=1', '-DVGPV_amd64_linux_vanilla=1']
    const steps: Array<[string, string[]]> = [
      // Flags as Valgrind's own tools are built (Makefile.tool.am): no PIE, no builtins, no stack protector.
      [cc, ['-O2', '-g', '-fno-strict-aliasing', '-fno-builtin', '-fno-stack-protector', '-fno-pie', ...defines, `-I${include}`, '-c', join(src, 'st_main.c'), '-o', join(work, 'st_main.o')]],
      [cc, ['-o', join(work, 'stride-amd64-linux'), join(work, 'st_main.o'), join(lib, 'libcoregrind-amd64-linux.a'), join(lib, 'libvex-amd64-linux.a'), join(lib, 'libgcc-sup-amd64-linux.a'), '-static', '-nodefaultlibs', '-nostartfiles', '-u', '_start', '-Wl,-Ttext-segment=0x58000000', '-lgcc']],
      [cc, ['-O2', '-fPIC', '-shared', '-fno-stack-protector', `-I${include}`, `-I${src}`, '-Wl,-soname,vgpreload_stride-amd64-linux.so', '-o', join(work, 'vgpreload_stride-amd64-linux.so'), join(src, 'st_preload.c')]]
    ]
    for (const [cmd, args] of steps) {
      const r = spawnSync(cmd, args, { encoding: 'utf8' })
      if (r.error) return { ok: false, reason: `cannot run the C compiler "${cmd}" (${r.error.message}): install gcc (Debian: apt-get install gcc)` }
      if (r.status !== 0) {
        const why = (r.stderr || r.stdout).trim().split('\n').find((l) => /error|undefined|cannot find/i.test(l)) ?? `exit ${r.status}`
        return { ok: false, reason: `building Stride's Valgrind tool failed: ${why.slice(0, 300)}` }
      }
    }
    symlinkSync('stride-amd64-linux', join(work, 'stride.bin')) // what the wrapper script execs
    try {
      renameSync(work, dir)
    } catch (e) {
      // Another trace built it first: use theirs.
      if (!existsSync(tool.tool)) throw e
    }
    return { ok: true, tool }
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}
