#!/usr/bin/env node
import { runCli } from './dispatch.js';

/** The `oauth2-token-service` command (package.json "bin"): runs from dist/ with production dependencies only. */
process.exitCode = await runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin });
