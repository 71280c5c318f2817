/** Where the built agent bundle lives (scripts/build-agent.mjs writes it; npm run build). */
import { join } from 'node:path'
import { projectRoot } from '../../paths'

export function agentScriptPath(): string {
  return join(projectRoot(), 'out', 'agent', 'stride-agent.js')
}
