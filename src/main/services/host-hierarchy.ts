/**
 * Reads the host's caches for the default hierarchy (`simulate/host-caches.ts` decides what
 * they mean): on an AMD processor, CPUID's legacy cache leaves through /dev/cpu/0/cpuid when
 * it can be read (root), as Cachegrind reads them; otherwise Linux's sysfs
 * (/sys/devices/system/cpu/cpu0/cache/index*), which on Intel shows what Cachegrind reads
 * (CPUID leaf 4). STRIDE_HOST_CACHE_DIR names another cache directory (tests, other CPUs) and
 * leaves CPUID alone.
 */
import { closeSync, openSync, readdirSync, readFileSync, readSync } from 'node:fs'
import { join } from 'node:path'
import type { HostHierarchy } from '../../shared/domain'
import { decodeAmdCpuid, hostHierarchyOf, parseSysfsCaches, type HostReading, type SysfsIndex } from '../simulate/host-caches'

export const SYSFS_CACHE_DIR = '/sys/devices/system/cpu/cpu0/cache'
const SYSFS_FILES = ['level', 'type', 'size', 'ways_of_associativity', 'coherency_line_size', 'number_of_sets']

function reason(e: unknown): string {
  const err = e as NodeJS.ErrnoException
  return err.code ?? String(err.message ?? e)
}

/** The `index*` directories of a sysfs cache directory as their files' texts, or why they cannot be read. */
export function readSysfsDir(dir: string): Record<string, SysfsIndex> | string {
  let names: string[]
  try {
    names = readdirSync(dir).filter((n) => /^index\d+$/.test(n))
  } catch (e) {
    return `cannot list ${dir} (${reason(e)})`
  }
  const out: Record<string, SysfsIndex> = {}
  for (const name of names) {
    const files: SysfsIndex = {}
    for (const f of SYSFS_FILES) {
      try {
        files[f] = readFileSync(join(dir, name, f), 'utf8')
      } catch {
        files[f] = undefined
      }
    }
    out[name] = files
  }
  return out
}

/** CPUID through Linux's cpuid device: leaf -> [EAX, EBX, ECX, EDX]; null when it cannot be read. */
export function cpuidReader(device: string): { read: (leaf: number) => [number, number, number, number]; close: () => void } | null {
  let fd: number
  try {
    fd = openSync(device, 'r')
  } catch {
    return null
  }
  return {
    read: (leaf) => {
      const b = Buffer.alloc(16)
      // The device reads leaf (low 32 bits of the offset) and subleaf (high 32 bits: 0 here).
      if (readSync(fd, b, 0, 16, leaf) !== 16) throw new Error(`short read of CPUID leaf 0x${leaf.toString(16)}`)
      return [b.readUInt32LE(0), b.readUInt32LE(4), b.readUInt32LE(8), b.readUInt32LE(12)]
    },
    close: () => closeSync(fd)
  }
}

function vendorOf(regs: [number, number, number, number]): string {
  const b = Buffer.alloc(12)
  b.writeUInt32LE(regs[1], 0)
  b.writeUInt32LE(regs[3], 4)
  b.writeUInt32LE(regs[2], 8)
  return b.toString('latin1')
}

/** The processor's vendor from /proc/cpuinfo ("AuthenticAMD", "GenuineIntel"), or null. */
function cpuinfoVendor(): string | null {
  try {
    return /^vendor_id\s*:\s*(\S+)/m.exec(readFileSync('/proc/cpuinfo', 'utf8').slice(0, 4096))?.[1] ?? null
  } catch {
    return null
  }
}

export interface HostReadOptions {
  sysfsDir: string
  /** Linux's cpuid device, or null to read sysfs only. */
  cpuidDevice: string | null
  arch: string
  /** The processor's vendor as CPUID names it ("AuthenticAMD"), or null when not known. */
  vendor: string | null
}

function defaultOptions(): HostReadOptions {
  const override = process.env.STRIDE_HOST_CACHE_DIR
  return { sysfsDir: override || SYSFS_CACHE_DIR, cpuidDevice: override ? null : '/dev/cpu/0/cpuid', arch: process.arch, vendor: override ? null : cpuinfoVendor() }
}

function readAmdCpuid(device: string): HostReading | null {
  const reader = cpuidReader(device)
  if (!reader) return null
  const cpuid = reader.read
  try {
    if (vendorOf(cpuid(0)) !== 'AuthenticAMD') return null
    const caches = decodeAmdCpuid({ extLevel: cpuid(0x80000000)[0], l1d: cpuid(0x80000005)[2], l1i: cpuid(0x80000005)[3], l2: cpuid(0x80000006)[2], l3: cpuid(0x80000006)[3], signature: cpuid(1)[0] })
    if (typeof caches === 'string') return null
    return { source: 'cpuid', caches, where: 'CPUID', asCachegrind: true }
  } catch {
    return null
  } finally {
    reader.close()
  }
}

/** The host's default hierarchy; never throws (unreadable caches give Cachegrind's defaults and say why). */
export function readHostHierarchy(options: HostReadOptions = defaultOptions()): HostHierarchy {
  const x86 = options.arch === 'x64' || options.arch === 'ia32'
  if (x86 && options.cpuidDevice) {
    const amd = readAmdCpuid(options.cpuidDevice)
    if (amd) return hostHierarchyOf(amd, options.arch)
  }
  const dir = readSysfsDir(options.sysfsDir)
  if (typeof dir === 'string') return hostHierarchyOf({ source: 'unreadable', why: dir }, options.arch)
  const caches = parseSysfsCaches(dir)
  if (typeof caches === 'string') return hostHierarchyOf({ source: 'unreadable', why: `${options.sysfsDir}: ${caches}` }, options.arch)
  const vendor = x86 ? options.vendor : null
  // Cachegrind reads sysfs's figures on Intel (CPUID leaf 4); on AMD it reads the legacy leaves,
  // which may differ (here only root can read them); elsewhere it reads nothing and uses its defaults.
  const caveat =
    vendor === 'AuthenticAMD'
      ? "on AMD Cachegrind reads CPUID's legacy cache leaves, which may differ (Stride reads them when it can open /dev/cpu/0/cpuid, as root)"
      : !x86
        ? `Cachegrind does not read the caches on ${options.arch} and simulates its defaults instead`
        : undefined
  return hostHierarchyOf({ source: 'sysfs', caches, where: 'sysfs', asCachegrind: x86 && vendor !== 'AuthenticAMD', ...(caveat ? { caveat } : {}) }, options.arch)
}

let cached: HostHierarchy | null = null

/** The host's default hierarchy, read once a process (the caches do not change while it runs). */
export function hostHierarchy(): HostHierarchy {
  if (process.env.STRIDE_HOST_CACHE_DIR) return readHostHierarchy()
  return (cached ??= readHostHierarchy())
}
