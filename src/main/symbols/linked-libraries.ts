/** The shared libraries a program links, as `ldd` lists them (name -> path); none when ldd fails. */
import { parseLdd } from './library-spec'
import { runTool } from './run-tool'

export async function linkedLibraries(program: string): Promise<Map<string, string>> {
  return parseLdd(await runTool('ldd', [program]).catch(() => ''))
}
