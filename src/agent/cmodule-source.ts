/**
 * The CModule source, assembled from the C files (embedded as text by esbuild's text
 * loader when the agent is bundled): CModule compiles one string and cannot #include
 * local files, so the header comes first and the .c files follow in dependency order.
 */
import header from './cmodule/stride-cmodule.h'
import effectiveAddress from './cmodule/effective-address.c'
import ring from './cmodule/ring.c'
import transform from './cmodule/transform.c'
import upperState from './cmodule/upper-state.c'

export const CMODULE_SOURCE = [header, effectiveAddress, ring, transform, upperState].join('\n')
