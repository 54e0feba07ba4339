/**
 * A render pool with heap limits: a job that exhausts its worker's heap ends that worker only.
 * The job rejects with `RenderWorkerDiedError` (`outOfMemory`), the process lives on, and a new
 * worker renders the next input.
 */
import path from 'node:path';
import { createRenderPool, RenderWorkerDiedError } from '../../../src/render/render-pool';
import { jobModulePath } from '../../../src/render/worker-job';

jest.setTimeout(120_000);

it('an out-of-memory job kills only its worker, and the pool renders on', async () => {
  const pool = createRenderPool<string>({
    size: 1,
    job: { module: jobModulePath(path.resolve(__dirname, '../../fixtures/heap-hog-job.ts')) },
    resourceLimits: { maxOldGenerationSizeMb: 32, maxYoungGenerationSizeMb: 8 },
  });
  try {
    const died = await pool.render('hog').then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(died).toBeInstanceOf(RenderWorkerDiedError);
    expect((died as RenderWorkerDiedError).outOfMemory).toBe(true);
    expect((died as Error).message).toContain('render worker died while rendering hog');
    expect((await pool.render('next')).toString()).toBe('next');
  } finally {
    await pool.close();
  }
});
