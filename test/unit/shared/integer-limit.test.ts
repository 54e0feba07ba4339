import { integerFlag, limitProblem } from '../../../src/shared/integer-limit';

const cadence = { min: 60, max: 86_400, default: 120, step: 60 };

it('limitProblem says what is wrong with a value, and nothing for one inside the limit', () => {
  expect(limitProblem(cadence, 120)).toBeUndefined();
  expect(limitProblem(cadence, 59)).toBe('must be an integer in 60..86400');
  expect(limitProblem(cadence, 1.5)).toBe('must be an integer in 60..86400');
  expect(limitProblem(cadence, 90)).toBe('must be a multiple of 60');
});

it('integerFlag returns the value, or throws naming the flag and the value as typed', () => {
  expect(integerFlag('cadence', '180', cadence)).toBe(180);
  expect(() => integerFlag('cadence', '2m', cadence)).toThrow(
    '--cadence must be an integer, got "2m"',
  );
  expect(() => integerFlag('cadence', '30', cadence)).toThrow(
    '--cadence must be an integer in 60..86400, got "30"',
  );
});
