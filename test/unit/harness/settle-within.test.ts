import { settleWithin } from '../../harness/wait';

it('gives the promise its outcome when it settles first', async () => {
  await expect(settleWithin(Promise.resolve(7), 1000, () => 'late')).resolves.toBe(7);
  await expect(settleWithin(Promise.reject(new Error('own')), 1000, () => 'late')).rejects.toThrow(
    'own',
  );
});

it("gives onTimeout's value or error when the promise does not settle in time", async () => {
  const never = new Promise<number>(() => undefined);
  await expect(settleWithin(never, 10, () => 'late')).resolves.toBe('late');
  await expect(
    settleWithin(never, 10, () => {
      throw new Error('no answer');
    }),
  ).rejects.toThrow('no answer');
});
