// C sources embedded as text by the agent bundler (scripts/build-agent.mjs, esbuild text loader).
declare module '*.c' {
  const text: string
  export default text
}
declare module '*.h' {
  const text: string
  export default text
}
