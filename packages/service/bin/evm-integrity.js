#!/usr/bin/env node
// The command's launcher. It is a file of the repository, not of the build, so that npm links the
// command at install time, before `npm run build` has made dist/.
import { main } from '../dist/cli/main.js';

process.exitCode = await main(process.argv.slice(2));
