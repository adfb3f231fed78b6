/**
 * A client that floods a server from a process of its own, as an attacker would from its own machine: on each of
 * `connections` connections it pipelines `count` copies of one raw HTTP request, and again each time they are all
 * answered. It prints the number of answers so far each 250 ms, one line each, until it is killed.
 *
 * Run: `node dist-bench/bench/pipelined-flood.js <port> <connections> <count> <request file>`.
 */
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';

const [port, connections, count, requestFile] = process.argv.slice(2);
const request = readFileSync(requestFile!, 'latin1');
let answered = 0;

for (let i = 0; i < Number(connections); i++) {
  const socket = connect(Number(port), '127.0.0.1');
  socket.on('error', () => undefined);
  let carry = '';
  let owed = Number(count);
  socket.write(request.repeat(owed));
  socket.on('data', (chunk) => {
    const text = carry + chunk.toString('latin1');
    const seen = text.split('HTTP/1.1 ').length - 1;
    // Shorter than the marker, so an answer is never counted twice.
    carry = text.slice(-8);
    answered += seen;
    owed -= seen;
    if (owed <= 0) {
      owed += Number(count);
      socket.write(request.repeat(Number(count)));
    }
  });
}
setInterval(() => process.stdout.write(`${answered}\n`), 250);
