/**
 * The hostile-input replica of one fuzz test file: started before all tests, and after all
 * tests the file's fuzz summary is printed and the replica stopped. What every fuzz file wrote
 * out by hand.
 */
import { printSummary } from './fuzz-run';
import { startHostileApi, type HostileApi } from './hostile-api';

/** Registers the replica with jest's `beforeAll`/`afterAll`; the getter works inside tests. */
export function useHostileApi(summaryName: string): () => HostileApi {
  let api: HostileApi | undefined;
  beforeAll(async () => {
    api = await startHostileApi();
  });
  afterAll(async () => {
    printSummary(summaryName);
    await api?.stop();
  });
  return () => {
    if (api === undefined) throw new Error('the hostile API is not started yet (use it in tests)');
    return api;
  };
}
