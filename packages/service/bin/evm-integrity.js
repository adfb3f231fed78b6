#!/usr/bin/env node
// The command's launcher. It is a file of the repository, not of the build, so that npm links the
// command at install time, before `npm run build` has made dist/. It runs the bundled CLI
// (scripts/bundle-cli.mjs), which starts in a fraction of the time the module tree takes.
import { main } from '../dist/cli-bundle/main.js';

// A reader that stops early (`… | head`) closes the pipe: end as a command killed by SIGPIPE does
// (status 141, nothing more printed), not with a stack trace.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(141);
  throw error;
});

process.exitCode = await main(process.argv.slice(2));
