import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * What a fresh machine starts from, for the benches that time one
 * (bench:ci-like, bench:fast-lab --fresh): a clean clone of one commit of
 * this repository — what git tracks, nothing else: no node_modules, no
 * .layerlab state, no results, no uncommitted change — and an empty image
 * cache, so every guest and tool image is built and no template exists.
 */

/** This repository (the checkout the bench runs from). */
export const REPO = resolve(import.meta.dirname, '..');

/** Runs git; its trimmed stdout, or an error naming the command and git's stderr. */
export function git(...args: string[]): string {
  const r = spawnSync('git', args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
}

/** Clones `from` (this repository) into `dir` and checks out `commit` there; returns that commit's short id. */
export function cleanClone(dir: string, commit = 'HEAD', from = REPO): string {
  const rev = git('-C', from, 'rev-parse', '--short', commit);
  git('clone', '--quiet', '--no-checkout', from, dir);
  git('-C', dir, 'checkout', '--quiet', rev);
  return rev;
}

/**
 * The environment of a layerlab whose image cache is `<work>/cache`
 * (LAYERLAB_CACHE), refused unless that folder is empty or not there yet:
 * a cache left from an earlier round would time a warm start as a fresh one.
 */
export function emptyCacheEnv(work: string): { LAYERLAB_CACHE: string } {
  const cache = join(work, 'cache');
  if (existsSync(cache) && readdirSync(cache).length)
    throw new Error(`${cache} is not empty: a fresh start needs an empty image cache; give it a new folder`);
  return { LAYERLAB_CACHE: cache };
}
