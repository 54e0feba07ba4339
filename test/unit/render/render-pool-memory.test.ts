/**
 * A render worker gives its job's grids back as soon as the job is done: an idle worker holds
 * no dead CONUS grid beside the work of the other threads (a producer's peak memory).
 */
import path from 'node:path';
import { createRenderPool } from '../../../src/render/render-pool';
import { jobModulePath } from '../../../src/render/worker-job';

jest.setTimeout(60_000);

it('after a job that left two 98 MB grids behind, the worker holds none of them', async () => {
  const pool = createRenderPool<string>({
    size: 1,
    job: { module: jobModulePath(path.resolve(__dirname, '../../fixtures/grid-garbage-job.ts')) },
  });
  try {
    expect((await pool.render('grid')).toString()).toBe('filled 49000000');
    // The collector frees array buffers on a background thread: the worker's report drops
    // under 16 MB within moments; without the collection after each job it stays at 196 MB.
    const held: number[] = [];
    for (let i = 0; i < 50 && !(held.at(-1)! < 16 * 1024 * 1024); i++) {
      if (i > 0) await new Promise((resolve) => setTimeout(resolve, 100));
      held.push(Number((await pool.render('report')).toString()));
    }
    expect(held.at(-1)).toBeLessThan(16 * 1024 * 1024);
  } finally {
    await pool.close();
  }
});
