import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    // PTY and tmux tests spawn real processes; the machines are 2-core and shared.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Two files at a time. Vitest's default is one fewer than the cores, which is 1 here: the
    // suite ran file after file although most of its time is spent waiting on the processes
    // it drives (PTYs, tmux, Chromium, the demo's pace). Measured at load ~6 on 2 cores: 658 s
    // with 1 worker, 280 s with 2. Every test must hold with a neighbour file running anyway.
    maxWorkers: 2,
    // A test that asserts nothing passes whatever the code does: it fails instead.
    expect: { requireAssertions: true },
  },
});
