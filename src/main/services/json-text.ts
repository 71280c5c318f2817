/**
 * A call's result already serialized as JSON, in the worker thread that made it. A run's
 * report (~5,000 references, 2.5 MB of JSON) structured-cloned to the main thread and then
 * serialized there for the wire cost the main thread about 45 ms a report; as text it crosses
 * as one flat string and the wire session sends it as it is (server/wire-session.ts).
 * Whatever else serializes it (JSON.stringify) gets the same JSON through `toJSON`.
 */
export class JsonText<T> {
  /** Only marks what the text holds, for the handlers' types; never set. */
  declare readonly holds?: T

  constructor(readonly text: string) {}

  toJSON(): T {
    return JSON.parse(this.text) as T
  }
}
