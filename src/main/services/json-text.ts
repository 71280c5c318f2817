/**
 * A call's result already serialized as JSON, in the worker thread that made it, as UTF-8
 * bytes. A run's report (~5,000 references, 2.5-3.6 MB of JSON) structured-cloned to the main
 * thread and then serialized there for the wire cost the main thread about 45 ms a report; as
 * one string it still cost the WebSocket's send ~100 ms (flattening and encoding it). As bytes
 * it is encoded on the worker, crosses by transfer (no copy), and the wire session sends it as
 * it is (server/wire-session.ts). Whatever else serializes it (JSON.stringify) gets the same
 * JSON through `toJSON`.
 */
export class JsonText<T> {
  /** Only marks what the text holds, for the handlers' types; never set. */
  declare readonly holds?: T

  constructor(readonly json: Uint8Array) {}

  /** `value` as JSON bytes, in a buffer of their own (transferable to another thread). */
  static bytesOf(value: unknown): Uint8Array {
    // Buffer.from encodes twice as fast as TextEncoder here; a small result comes from Node's
    // shared pool, and is copied out so that a transfer moves only its own memory.
    const bytes = Buffer.from(JSON.stringify(value), 'utf8')
    return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : Uint8Array.from(bytes)
  }

  toJSON(): T {
    return JSON.parse(textOf(this.json)) as T
  }
}

/** UTF-8 bytes as a string. */
export function textOf(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')
}
