/** The CLI's usage text, whole (`stride --help`) and per command (`stride trace --help`). */
export const USAGE = `usage: stride <command> [options]
  trace    [--functions F1,F2 [--follow-calls]] [--max-events N [--stop-at-limit]] [--seconds T] [--no-heap] --out S.stride [--force]
           [--cache NAME:SIZE:ASSOC:LINE[:POLICY] ... [--tlb ...] [--cachegrind-compatible]] --launch PROGRAM [ARGS...]
           (ARGS: from the first word after PROGRAM that is no trace option; or [OPTIONS] -- ARGS...)
  trace    --attach PID|NAME --functions F1,F2 [--max-events N] [--seconds T] [--sampling MODE] [--no-heap] --out S.stride [--force]
           (--launch PROGRAM --backend frida: spawn under Frida; MODE: complete, max-samples=N,
            periodic=PERIOD_MS,INTERVAL_MS, convergence=THRESHOLD[,MIN_SAMPLES])
  top      [--out S.stride] [--cache NAME:SIZE:ASSOC:LINE ...] [--max-events N] [--count N | --all] [--json] --launch PROGRAM [ARGS...]
           S.stride [--run N] [--count N | --all] [--json]
           (what is hot: a whole-program trace with the host's caches, its functions by first-level misses, self costs)
  simulate S.stride [--cache NAME:SIZE:ASSOC:LINE[:POLICY] ...] [--cachegrind-compatible] [--all] [--json]
           (without --cache: the host's D1 and LL, as Cachegrind simulates them; see hierarchy)
  report   S.stride [--run N] --by line|reference|variable|function|loop [--against M | OTHER.stride[:M]] [--all] [--json]
  info     S.stride [--streams] [--json]
  runs     S.stride [--run N [--rename TEXT]] [--json]   (--rename "": back to the derived label)
  export   S.stride --format raw --out FILE
  advise   S.stride [--run N] [--level NAME] [--json]
  objects  S.stride [--run N] [--level L1] --method exact|sample[:N]|search:WAYS|approx:raw|approx:loop|approx:skid
           [--interval prime|random|regular] [--threshold 0.01] [--every N] [--skid MEAN:SIGMA] [--source simulated|perf] [--json]
  query    S.stride '[{A,B},{sumfunc},{misses}]' [--run N] [--reduce sum|min|max] [--all] [--json]
  hierarchy [--json]   (the host's D1 and LL as Cachegrind simulates them, as --cache flags)
  serve    [--port N]
  version  (also --version): Stride's version and Node's`

/** One command's lines of USAGE: its own lines and the indented lines continuing them. */
export function commandUsage(command: string): string {
  const out: string[] = []
  let mine = false
  for (const line of USAGE.split('\n').slice(1)) {
    const head = /^ {2}(\w+)/.exec(line)
    if (head) mine = head[1] === command
    if (mine) out.push(line.slice(2))
  }
  return `usage: stride ${out.join('\n              ')}`
}
