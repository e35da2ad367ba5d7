import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    // PTY and tmux tests spawn real processes; the machines are 2-core and shared.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
