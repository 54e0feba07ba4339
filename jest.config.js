/** Jest runs TypeScript through SWC (type checking is `npm run typecheck`, run first by `npm test`). */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest'] },
  globalSetup: '<rootDir>/test/harness/global-setup.ts',
  testTimeout: 30000,
  maxWorkers: 2,
};
