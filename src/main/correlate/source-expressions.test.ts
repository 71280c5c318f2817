import { describe, expect, it } from 'vitest'
import { assignedTargets, cppOwnerName, collectAccesses, matchExpressions, parseLine, type LinePoint } from './source-expressions'

async function exprs(line: string) {
  const root = await parseLine(line)
  if (!root) throw new Error('tree-sitter C grammar missing')
  return collectAccesses(root)
}

async function match(line: string, points: LinePoint[]) {
  return Object.fromEntries(matchExpressions(points, await exprs(line)))
}

describe('source expressions (METRIC SourceRef)', () => {
  it('finds accesses with their roles, skipping address arithmetic', async () => {
    expect(await exprs('A[i][j] = A[i][j] * B[j][i];')).toEqual([
      { text: 'A[i][j]', base: 'A', container: 'A', role: 'write' },
      { text: 'A[i][j]', base: 'A', container: 'A', role: 'read' },
      { text: 'B[j][i]', base: 'B', container: 'B', role: 'read' }
    ])
    expect((await exprs('C[ind[j]] *= D[ind[j]];')).map((e) => `${e.text}:${e.role}`)).toEqual(['C[ind[j]]:update', 'ind[j]:read', 'D[ind[j]]:read', 'ind[j]:read'])
    expect((await exprs('for (struct node *p = head; p; p = p->next)')).map((e) => e.text)).toEqual(['p->next'])
    expect((await exprs('q = &A[i]; *r += 1;')).map((e) => `${e.text}:${e.role}`)).toEqual(['*r:update'])
  })

  it('matches METRIC 10.2 (A[i][j] * B[j][i])', async () => {
    expect(
      await match('            A[i][j] = A[i][j] * B[j][i];', [
        { key: 2, kind: 'read', variable: 'A' },
        { key: 3, kind: 'read', variable: 'B' },
        { key: 7, kind: 'write', variable: 'A' }
      ])
    ).toEqual({ 2: 'A[i][j]', 3: 'B[j][i]', 7: 'A[i][j]' })
  })

  it('gives a field read to the structure and the element read to the block the field points at', async () => {
    // A hash table: `t` (the struct) and the bucket array it points at, named `t->buckets`
    // after the line that allocated it.
    expect(
      await match('    for (struct entry *e = t->buckets[h]; e; e = e->next)', [
        { key: 7, kind: 'read', variable: 't' },
        { key: 13, kind: 'read', variable: 't->buckets' },
        { key: 14, kind: 'read', variable: 'e' }
      ])
    ).toEqual({ 7: 't->buckets', 13: 't->buckets[h]', 14: 'e->next' })
  })

  it('matches METRIC 10.1 (C[ind[j]] *= D[ind[j]])', async () => {
    expect(
      await match('        C[ind[j]] *= D[ind[j]];', [
        { key: 10, kind: 'read', variable: 'ind' },
        { key: 11, kind: 'read', variable: 'C' },
        { key: 12, kind: 'read', variable: 'D' },
        { key: 13, kind: 'write', variable: 'C' }
      ])
    ).toEqual({ 10: 'ind[j]', 11: 'C[ind[j]]', 12: 'D[ind[j]]', 13: 'C[ind[j]]' })
  })

  it('matches accesses through parameters by order (METRIC 10.3 sumfunc)', async () => {
    expect(
      await match('        sum += S1[i] + S2[i] + S3[i];', [
        { key: 0, kind: 'read', variable: 'A' },
        { key: 1, kind: 'read', variable: 'B' },
        { key: 2, kind: 'read', variable: 'C' }
      ])
    ).toEqual({ 0: 'S1[i]', 1: 'S2[i]', 2: 'S3[i]' })
  })

  it('names what each call on a line hands its result to, in call order', async () => {
    const targets = async (line: string) => assignedTargets((await parseLine(line))!)
    expect(await targets('    struct particle *particles = calloc(PARTICLES, sizeof *particles);')).toEqual(['particles'])
    expect(await targets('        struct node *node = malloc(sizeof *node);')).toEqual(['node'])
    expect(await targets('    p->next = (struct node *)malloc(sizeof(struct node));')).toEqual(['p->next'])
    expect(await targets('    use(malloc(16));')).toEqual([])
    expect(await targets('  int ret = posix_memalign(&new, 4096, alloc_sz);')).toEqual(['new'])
    expect(await targets('  double (*A)[N] = malloc(sizeof(double[N][N])), (*B)[N] = malloc(sizeof(double[N][N]));')).toEqual(['A', 'B'])
    expect(await targets('  double (*A)[N][M] = (double (*)[N][M])polybench_alloc_data((N) * (M), sizeof(double));')).toEqual(['A'])
    expect(await targets('  rows[i] = xmalloc(size(n)); cols[i] = xmalloc(n);')).toEqual(['rows[i]', 'cols[i]'])
  })

  it('names the object a C++ line allocates for', () => {
    expect(cppOwnerName('  Node *n = new Node(3);')).toBe('n')
    expect(cppOwnerName('  for (int k = 0; k < 200; k++) list = new Node{k, list};')).toBe('list')
    expect(cppOwnerName('  std::vector<double> values(n);')).toBe('values')
    expect(cppOwnerName('    values.push_back(x); // grows')).toBe('values')
    expect(cppOwnerName('    counts[key] += 1;')).toBe('counts')
    expect(cppOwnerName('  for (int k = 0; k < 256; k++) counts[k] = k;')).toBe('counts')
    expect(cppOwnerName('  double *p = (double *)malloc(n * sizeof(double));')).toBeNull()
    expect(cppOwnerName('  return total;')).toBeNull()
    // The declared object a call's result initializes, not an object its arguments name.
    expect(cppOwnerName('  Json::String input = readInputTestFile(opts.path.c_str());')).toBe('input')
    expect(cppOwnerName('  const std::vector<int>& xs = build(cfg.n);')).toBe('xs')
  })
})
