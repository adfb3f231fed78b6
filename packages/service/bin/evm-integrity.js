#!/usr/bin/env node
// The command's launcher. It is a file of the repository, not of the build, so that npm links the
// command at install time, before `npm run build` has made dist/. It runs the bundled CLI
// (scripts/bundle-cli.mjs), which starts in a fraction of the time the module tree takes.
import { main } from '../dist/cli-bundle/main.js';

process.exitCode = await main(process.argv.slice(2));
