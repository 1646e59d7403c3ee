#!/usr/bin/env node
// Runs the TypeScript CLI through tsx's loader: no build step between a
// checkout and a working `layerlab`.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../lab/cli.ts');
process.exitCode = await main(process.argv);
