#!/usr/bin/env node
import { runCli, servesAlone } from './dispatch.js';

/**
 * The `oauth2-token-service` command (package.json "bin"): runs from dist/ with production
 * dependencies only. `serve` starts the server (src/main.ts, configured by the environment).
 */
const argv = process.argv.slice(2);
if (servesAlone(argv)) await import('../main.js');
else process.exitCode = await runCli(argv, { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin });
