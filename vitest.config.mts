import { defineConfig } from 'vitest/config'

// Three projects: pure/unit tests (fast), integration tests that run real programs under
// Valgrind through the built CLI, and e2e tests that drive the web-mode UI in Chromium.
export default defineConfig({
  test: {
    // One temporary folder per run, removed at its end (src/main/testing/temp-root.ts).
    globalSetup: ['src/main/testing/temp-root.ts'],
    projects: [
      {
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts', 'scripts/**/*.test.ts'],
          exclude: ['src/**/*.integration.test.ts'],
          environment: 'node',
          testTimeout: 30_000
        }
      },
      {
        test: {
          name: 'integration',
          include: ['src/**/*.integration.test.ts'],
          environment: 'node',
          testTimeout: 600_000,
          hookTimeout: 600_000,
          fileParallelism: false
        }
      },
      {
        test: {
          name: 'e2e',
          include: ['e2e/**/*.e2e.test.ts'],
          environment: 'node',
          testTimeout: 300_000,
          hookTimeout: 300_000,
          fileParallelism: false
        }
      }
    ]
  }
})
