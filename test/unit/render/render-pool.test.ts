import { PMTiles } from 'pmtiles';
import { createFrameRenderer } from '../../../src/render/render-frame';
import {
  createRenderPool,
  defaultPoolSize,
  type RenderPool,
} from '../../../src/render/render-pool';
import { createBufferSource } from '../../fixtures/buffer-source';

describe('render pool (worker threads started from the .ts sources under jest)', () => {
  let pool: RenderPool | undefined;
  afterEach(async () => {
    await pool?.close();
    pool = undefined;
  });

  it('defaults to one worker less than the cores, at least one', () => {
    expect(defaultPoolSize()).toBeGreaterThanOrEqual(1);
  });

  it('renders the same archive as the in-process renderer', async () => {
    pool = createRenderPool({ size: 2, maxZoom: 3 });
    const [a, b] = await Promise.all([pool.render('202611221400'), pool.render('202611221402')]);
    const local = createFrameRenderer({ maxZoom: 3 });
    expect(a!.equals(local.render('202611221400'))).toBe(true);
    expect(b!.equals(local.render('202611221402'))).toBe(true);
    const metadata = (await new PMTiles(createBufferSource(a!)).getMetadata()) as {
      timestamp: string;
    };
    expect(metadata.timestamp).toBe('202611221400');
  });

  it('queues more jobs than workers and completes them all', async () => {
    pool = createRenderPool({ size: 1, maxZoom: 2 });
    const stamps = ['202611221400', '202611221402', '202611221404', '202611221406'];
    const archives = await Promise.all(stamps.map((ts) => pool!.render(ts)));
    for (const [i, archive] of archives.entries()) {
      const metadata = (await new PMTiles(createBufferSource(archive)).getMetadata()) as {
        timestamp: string;
      };
      expect(metadata.timestamp).toBe(stamps[i]);
    }
  });

  it('rejects a job that fails and keeps working', async () => {
    pool = createRenderPool({ size: 1, maxZoom: 1 });
    await expect(pool.render('202613301400')).rejects.toThrow(/invalid timestamp/);
    await expect(pool.render('202611221400')).resolves.toBeInstanceOf(Buffer);
  });

  it('closes cleanly: queued jobs are rejected, running ones finish, later ones are refused', async () => {
    pool = createRenderPool({ size: 1, maxZoom: 2 });
    const running = pool.render('202611221400');
    const queued = pool.render('202611221402');
    const closed = pool.close();
    await expect(queued).rejects.toThrow(/closed/);
    await expect(running).resolves.toBeInstanceOf(Buffer);
    await closed;
    await expect(pool.render('202611221404')).rejects.toThrow(/closed/);
    await pool.close(); // idempotent
  });
});
