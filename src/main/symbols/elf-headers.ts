/**
 * What Stride needs of an ELF file's headers, read from the file itself: its type, its section
 * names and its GNU build ID (what `readelf -h`, `-S` and `-n` told before). A child process
 * costs the tracer's thread a few milliseconds to start, and a trace started six of these.
 * ELF32 and ELF64, either byte order; only the byte ranges named by the headers are read.
 */
import { open, type FileHandle } from 'node:fs/promises'

export interface ElfHeaders {
  /** Executable (fixed addresses), or shared object / position-independent executable. */
  type: 'exec' | 'dyn' | null
  sections: string[]
  /** Lower-case hex, as readelf prints it. */
  buildId: string | null
}

const ET_EXEC = 2
const ET_DYN = 3
const SHT_NOTE = 7
const PT_NOTE = 4
const NT_GNU_BUILD_ID = 3
const SHN_XINDEX = 0xffff
/** Far more than any real object has: a damaged count must not make us read without bound. */
const MAX_HEADERS = 1 << 16
const MAX_NOTES_BYTES = 1 << 20
const MAX_NAMES_BYTES = 1 << 22

/** The headers, or null when the file is not ELF (or too damaged to read them). */
export async function readElfHeaders(path: string): Promise<ElfHeaders | null> {
  const file = await open(path, 'r')
  try {
    return await parse(file)
  } finally {
    await file.close()
  }
}

interface Region {
  offset: number
  size: number
  align: number
}

async function bytes(file: FileHandle, offset: number, size: number): Promise<DataView | null> {
  if (!Number.isSafeInteger(offset) || offset < 0 || size < 0) return null
  const buffer = Buffer.alloc(size)
  const { bytesRead } = await file.read(buffer, 0, size, offset)
  return bytesRead === size ? new DataView(buffer.buffer, buffer.byteOffset, size) : null
}

async function parse(file: FileHandle): Promise<ElfHeaders | null> {
  const ident = await bytes(file, 0, 64)
  if (!ident || ident.getUint32(0) !== 0x7f454c46) return null
  const wide = ident.getUint8(4) === 2
  const little = ident.getUint8(5) === 1
  if (!wide && ident.getUint8(4) !== 1) return null
  const u16 = (v: DataView, at: number) => v.getUint16(at, little)
  const u32 = (v: DataView, at: number) => v.getUint32(at, little)
  const word = (v: DataView, at: number) => (wide ? Number(v.getBigUint64(at, little)) : v.getUint32(at, little))
  const elfType = u16(ident, 16)
  const type = elfType === ET_EXEC ? 'exec' : elfType === ET_DYN ? 'dyn' : null

  // Section headers: their names, and the note sections.
  const shoff = word(ident, wide ? 0x28 : 0x20)
  const shentsize = u16(ident, wide ? 0x3a : 0x2e)
  let shnum = u16(ident, wide ? 0x3c : 0x30)
  let shstrndx = u16(ident, wide ? 0x3e : 0x32)
  const sections: Array<{ name: number; type: number } & Region> = []
  if (shoff > 0 && shentsize >= (wide ? 64 : 40)) {
    // More sections than 16 bits hold: the counts are in section 0 (as readelf reads them).
    const first = await bytes(file, shoff, shentsize)
    if (first && shnum === 0) shnum = Number(word(first, wide ? 0x20 : 0x14))
    if (first && shstrndx === SHN_XINDEX) shstrndx = u32(first, wide ? 0x28 : 0x18)
    const table = shnum > 0 && shnum <= MAX_HEADERS ? await bytes(file, shoff, shnum * shentsize) : null
    for (let i = 0; table && i < shnum; i++) {
      const at = i * shentsize
      sections.push({
        name: u32(table, at),
        type: u32(table, at + 4),
        offset: word(table, at + (wide ? 0x18 : 0x10)),
        size: word(table, at + (wide ? 0x20 : 0x14)),
        align: word(table, at + (wide ? 0x30 : 0x20))
      })
    }
  }
  const strings = sections[shstrndx]
  const names = strings && strings.size <= MAX_NAMES_BYTES ? await bytes(file, strings.offset, strings.size) : null
  const nameAt = (at: number): string => {
    if (!names || at >= names.byteLength) return ''
    let end = at
    while (end < names.byteLength && names.getUint8(end) !== 0) end++
    return Buffer.from(names.buffer, names.byteOffset + at, end - at).toString('latin1')
  }

  // Notes: from the note sections, else (no section headers) from the note segments.
  let notes: Region[] = sections.filter((s) => s.type === SHT_NOTE)
  if (sections.length === 0) {
    const phoff = word(ident, wide ? 0x20 : 0x1c)
    const phentsize = u16(ident, wide ? 0x36 : 0x2a)
    const phnum = u16(ident, wide ? 0x38 : 0x2c)
    const table = phoff > 0 && phnum > 0 && phentsize >= (wide ? 56 : 32) ? await bytes(file, phoff, phnum * phentsize) : null
    notes = []
    for (let i = 0; table && i < phnum; i++) {
      const at = i * phentsize
      if (u32(table, at) !== PT_NOTE) continue
      notes.push({ offset: word(table, at + (wide ? 8 : 4)), size: word(table, at + (wide ? 0x20 : 0x10)), align: word(table, at + (wide ? 0x30 : 0x1c)) })
    }
  }
  let buildId: string | null = null
  for (const n of notes) {
    if (buildId !== null || n.size > MAX_NOTES_BYTES) continue
    const view = await bytes(file, n.offset, n.size)
    if (view) buildId = gnuBuildId(view, little, n.align === 8 ? 8 : 4)
  }
  return { type, sections: sections.map((s) => nameAt(s.name)), buildId }
}

/** The NT_GNU_BUILD_ID note's bytes as hex, if the notes hold one. */
function gnuBuildId(v: DataView, little: boolean, align: number): string | null {
  const up = (n: number) => Math.ceil(n / align) * align
  for (let at = 0; at + 12 <= v.byteLength; ) {
    const namesz = v.getUint32(at, little)
    const descsz = v.getUint32(at + 4, little)
    const type = v.getUint32(at + 8, little)
    const name = at + 12
    const desc = name + up(namesz)
    if (desc + descsz > v.byteLength) return null
    const isGnu = namesz === 4 && v.getUint32(name) === 0x474e5500 // "GNU\0"
    if (isGnu && type === NT_GNU_BUILD_ID && descsz > 0) return Buffer.from(v.buffer, v.byteOffset + desc, descsz).toString('hex')
    at = desc + up(descsz)
  }
  return null
}
