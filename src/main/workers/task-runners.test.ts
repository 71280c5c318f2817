import { describe, expect, it } from 'vitest'
import { preloadTaskRunners, taskRunner } from './task-runners'

describe('task runners', () => {
  it('loads each task kind\'s own function on first use', async () => {
    expect((await taskRunner('simulate')).name).toBe('simulateTask')
    expect((await taskRunner('report')).name).toBe('reportTask')
    expect((await taskRunner('advice')).name).toBe('adviceTask')
    expect((await taskRunner('query')).name).toBe('queryTask')
    expect((await taskRunner('objects')).name).toBe('objectsTask')
  })

  it('preloads every task without running one', async () => {
    await expect(preloadTaskRunners()).resolves.toBeUndefined()
  })
})
