/** Distinct texts numbered in the order they are first met: a column of texts as small numbers. */
export class TextIndex {
  /** The texts, by number. */
  readonly texts: string[] = []
  private readonly numbers = new Map<string, number>()

  /** The text's number, given it the first time. */
  of(text: string): number {
    let n = this.numbers.get(text)
    if (n === undefined) {
      n = this.texts.length
      this.texts.push(text)
      this.numbers.set(text, n)
    }
    return n
  }
}
