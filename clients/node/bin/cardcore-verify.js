#!/usr/bin/env node
// `cardcore verify`, run in Node by cardcore's own verifier under Pyodide: src/cli.js, --help.
import { main } from '../src/cli.js';

process.exitCode = await main(process.argv.slice(2));
