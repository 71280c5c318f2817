/**
 * Which build of Stride this is: a digest of the sources it was built from (electron.vite.config.ts
 * defines it), or 'source' where the TypeScript runs unbuilt (unit tests). What one build
 * derived and stored (the view cache) is read back only by that same build: another may
 * diagnose or rank differently.
 */
declare const __STRIDE_BUILD__: string | undefined

export const BUILD_IDENTITY: string = typeof __STRIDE_BUILD__ === 'string' ? __STRIDE_BUILD__ : 'source'
