import { mkdir, rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';

/**
 * The Node project's global setup: names the folder where this run builds the production server once, for every file
 * that runs it (`sharedServerBuild` in testing/production-harness.ts). The build is made only if such a file runs. The
 * folder is this run's alone (another run in the same tree builds its own) and is removed at the end.
 */
export default async function setup(project: TestProject) {
  const cache = fileURLToPath(new URL('../node_modules/.cache/', import.meta.url));
  await mkdir(cache, { recursive: true });
  const dir = `${cache}server-build-${process.pid}-${Date.now()}`;
  project.provide('serverBuildDir', dir);
  return () => rm(dir, { recursive: true, force: true });
}
