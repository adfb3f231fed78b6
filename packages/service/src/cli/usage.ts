/**
 * What each command of the CLI prints for `--help` and `help COMMAND`. Kept apart from
 * the commands themselves so that `evm-integrity help serve` loads no server code.
 */
import { RULE_SET_NAMES } from 'evm-integrity';

export const VERIFY_USAGE = `Usage:
  evm-integrity verify receipt-root [FILE|-]
      the body of POST /v1/evm/verify/receipt-root
  evm-integrity verify logs-bloom [FILE|-]
      the body of POST /v1/evm/verify/logs-bloom
  evm-integrity verify receipt-proof [FILE|-]
                [--block-hash H | --anchor-proof F --checkpoint R]
      a receipt proof (prove receipt writes it)
  evm-integrity verify block [FILE|-]…
      the JSON-RPC header and complete receipts of each block
  evm-integrity verify logs-proof FILE|-
                (--head-hash H | --anchor-proof F --checkpoint R)
                [--from N] [--to M] [--address A]… [--topic0 T]…
                [--chain C] [--out LOGS.ndjson]
      a complete-log proof of a range (prove logs writes it)
  (each also takes [--chain C] [--add-chain ID:R]…)

Options:
  --pretty      indent the JSON output
  --json        accepted: the output is JSON with or without it
  --chain C     the chain (an id or a name) of a block or body that names none;
                one that names another chain is refused, naming both
  --add-chain ID:R  add chain ID, following rule set R, to the registry for this
                run (a devnet, then named by --chain ID); repeatable
  --rules R     block: verify a block with rule set R (for blocks that name no
                chain and no --chain, or a chain outside the registry)
                rule sets: ${RULE_SET_NAMES.join(', ')}
  --workers N   verify blocks on N worker threads (0: none, at most 256;
                default: one per core once 8 MB of blocks are read)
  --verbose     say on stderr where the blocks were verified
  --evidence DIR  also stand on the blocks an operator vouched for in DIR
                (evidence add/capture writes them; each admitted again)
  --block-hash H  receipt-proof: the proof must be of block H (64 hex digits,
                with or without 0x), a hash you trust
  --anchor-proof F --checkpoint R  receipt-proof, logs-proof: in place of the
                trusted hash, an anchor proof file (evm-integrity anchor verify)
                that proves the block's hash (the range's last block's) from the
                beacon block root R you trust; the block is then authentic, and
                stderr names R. A hash F does not prove is refused (exit 1)

Prints the JSON the HTTP endpoint would answer (FILE, or standard input for - or
no FILE), one line a block in argument order. A file that cannot be read or is
not JSON, and a block refused, get a line on stderr naming the file; the other
files are still verified, and a last line on stderr counts what they gave.
Exit status: 1 a claim of a block is false (a root, a header or a bloom),
whatever the other files gave; else 2 bad input or not verifiable; else 0
verified; 3 a bug, 141 stdout closed early (… | head).
verify receipt-proof prints the receipt the proof holds (JSON-RPC's conventions)
and exits 0; a proof that does not hold is one line on stderr naming why and the
proof node at fault, exit 1; a file that is not a proof names the member,
exit 2.
verify logs-proof checks a proof written by prove logs as it streams in, from
--head-hash H alone (the hash of the range's last block, from a source you
trust); --chain C (an id or a name) refuses a proof of another chain, and
--add-chain ID:R checks a devnet's proof. A proof holds for the range and
filter it names: --from N and --to M (block numbers), --address A and --topic0
T (as prove logs takes them) refuse a proof of another range or filter
(range-mismatch, exit 1). When it holds, its logs go as NDJSON (eth_getLogs
form, in order) to --out FILE or stdout, only then, and a summary to stderr.
Exit status: 0 it holds, 1 it does not (the first fault named on stderr:
reason, block, why), 2 not a proof, a file that cannot be read, a bad flag, or
a range that cannot be proven.`;

export const EVIDENCE_USAGE = `Usage:
  evm-integrity evidence add FILE|- --trusted-hash H [--evidence-dir DIR]
                             [--vouched-by NAME]
  evm-integrity evidence capture --rpc URL --block N --trusted-hash H
                             [--evidence-dir DIR] [--vouched-by NAME]
  evm-integrity evidence list [--evidence-dir DIR]
  (each also takes --json)

Options:
  --trusted-hash H  the block's hash, as a source you trust gives it (your own
                    consensus client, an explorer, the chain's L1 contracts)
  --evidence-dir DIR  where evidence is kept (default: ./evidence)
  --vouched-by NAME   who vouches (default: USER@HOST of this command); shown in
                      reports and in a server's GET /v1/chains
  --rpc URL         capture: your node's JSON-RPC URL (or --rpc-url,
                    ETH_RPC_URL)
  --block N         capture: the block's number (decimal or 0x hex), or latest,
                    finalized, safe (asked of the node)
  --json            print what was admitted as JSON (list: one array)

A block of a built-in chain whose header hashes to H, and whose receipts
reproduce its receipts root and logs bloom under its era's rules, shows how that
chain encodes the kinds of receipts it holds. add and capture keep it in DIR
(one file a block: CHAIN-NUMBER.json, with who vouched and when), so that
verify, audit and serve given --evidence DIR claim those kinds on that chain and
era, each report naming the evidence "operator". list admits every file again
(no DIR yet: nothing to list, exit 0). Evidence counts only for the built-in
chains: an added chain (--add-chain) has no eras to stand on.
Exit status: 0 admitted, 1 refused: the block does not hash to H or does not
reproduce its receipts root or bloom (the reason on stderr), 2 a bad flag, a
file that cannot be read or is no block, a chain that is not built in or an era
whose rules are not implemented.`;

export const PROVE_USAGE = `Usage:
  evm-integrity prove receipt [FILE|-] --index N [--out P] [--pretty]
                              [--chain C] [--add-chain ID:R]… [--evidence DIR]
  evm-integrity prove logs --chain C --rpc URL --from N --to M
                           [--address A]… [--topic0 T]… [--out FILE]
                           [--concurrency K] [--add-chain ID:R]…

prove receipt writes the proof that receipt N (its transaction index) is in the
block in FILE (the JSON-RPC format verify block reads: chain_id, header,
complete receipts), to P or stdout: a JSON document (docs/proofs.md) that verify
receipt-proof and POST /v1/evm/verify/receipt-proof check. The block is verified
first, under its chain's rules in the registry: its receipts must give its
receiptsRoot and its header its hash, both checks its era claims. P is written
whole or not at all. --evidence DIR stands on an operator's evidence, as verify
does. --chain C: the chain (an id or a name) of a block that names none (one
that names another is refused). --add-chain ID:R adds a devnet to the registry,
as verify does (its checker needs the same --add-chain). The proof is JSON
(--json is accepted).
Exit status: 0 written, 1 the block's receipts or header do not match its
commitments, 2 bad input, no receipt at N, or a chain or era that cannot be
verified, 3 a bug.

prove logs writes a complete-log proof: every log of blocks N..M that matches
the filter (any of the --address, and topic0 any of the --topic0; every log
without them), with what shows none is missing: each header, and the receipts
of each block whose bloom may match. --chain C: a chain id or name
(evm-integrity chains), or a devnet's id added with --add-chain ID:R; N and M:
block numbers or latest, finalized, safe (asked of the node once). Blocks come
from the node (--rpc, --rpc-url or ETH_RPC_URL; its eth_chainId must be
--chain's), K fetched ahead (default 4). The proof goes to --out FILE (whole or
not at all) or to stdout (--out -, or none; not a terminal). stderr gets the
counts and the head hash, the hash of block M a verifier needs:
  evm-integrity verify logs-proof FILE --head-hash H
Exit status: 0 written, 2 bad flags, a node of another chain, a range that
cannot be proven (one line saying why), or a node that fails or serves blocks
that make no proof (nothing is left at --out; on stdout, a proof cut short),
3 a bug. Details: docs/cli.md.`;

export const ANCHOR_USAGE = `Usage:
  evm-integrity anchor verify FILE|- --checkpoint ROOT [--json]
  evm-integrity anchor prove --checkpoint ROOT --block N [--block M]…
                             --out FILE|- [--beacon URL] [--slot S]…
                             [--concurrency K] [--era-dir DIR] [--rpc URL]
                             [--light-client [--to-period P]]

anchor verify checks an anchor proof file (docs/anchor.md) against ROOT, the
root of a finalized beacon block you trust (64 hex digits, with or without 0x;
from your beacon node, GET /eth/v1/beacon/headers/finalized, and a second
source): every line must hash its way up to ROOT, or to what an earlier line
proved. Prints a line for each execution block it proves: its number, hash,
how it is proven (pre-merge, beacon-block, historical-summaries,
historical-roots, light-client) and its slot; a summary on stderr. --json
prints what POST /v1/evm/verify/anchor answers.
verify receipt-proof, verify logs-proof and audit take the same file as
--anchor-proof FILE --checkpoint ROOT in place of a hash you trust.
Exit status: 0 it verifies, 1 it does not (the line and why on stderr: another
checkpoint, a branch that fails…), 2 a file that cannot be read or is no anchor
proof, a bad flag, 3 a bug.

anchor prove writes an anchor proof file (docs/anchor.md): the proof that each
mainnet block N is in the history of checkpoint ROOT (the root of a finalized
beacon block you trust), checked offline by evm-integrity/anchor's
verifyAnchorProof.
From Capella on (block 17,034,870), from the beacon node at --beacon: the
checkpoint's block, its state's historical_summaries with their proof (a
Lodestar or Nimbus route), each block's beacon block (its slot searched for,
or given with --slot S) and the 8192 block roots of its period (K requests at a
time, default 16). The execution header is rebuilt from the beacon block's
payload: no execution node. Before the merge: the block's epoch record
(epoch-record-NNNNN.ssz in --era-dir DIR), the accumulator the package ships,
and the header from an execution node (--rpc, --rpc-url or ETH_RPC_URL).
Blocks from the merge to Capella are refused: no standard beacon API serves
what they need. --light-client (with --beacon; --block then optional) adds,
right after the head, ROOT's light-client bootstrap and one update a
sync-committee period from ROOT's period to the node's latest (or to period
P), each verified before it is kept: the file then proves each finalized
header's execution block. Every answer is held to the root it must reach, and
the file is verified before it is written, to FILE whole or not at all, or to
stdout (--out -); stderr names each block proven.
Exit status: 0 written, 2 a bad flag, a node that fails or serves data that
does not hash to its root (or a light-client step that does not verify), a node
without the light-client routes, a block that cannot be proven (one line saying
why; nothing is written), 3 a bug. Details: docs/cli.md, docs/anchor.md.`;

export const AUDIT_LOGS_USAGE = `Usage:
  evm-integrity audit-logs --chain C --rpc URL --from N --to M
                           [--address A]… [--topic0 T]… [--head-hash H]
                           [--proof FILE | --save-proof FILE]
                           [--window W] [--concurrency K] [--add-chain ID:R]…
                           [--json]

--chain C: a chain id or name (evm-integrity chains), or a devnet's id added
with --add-chain ID:R. N and M: block numbers or
latest, finalized, safe (asked of the node once, at start).

Checks that the node's eth_getLogs answer for blocks N..M and the filter is
complete and exact: it is compared, W blocks at a time (default 2000, halved
while the node says an answer is too big), with a complete-log proof of the
range, built from the node's blocks (kept with --save-proof FILE) or given with
--proof FILE (of the same chain, range and filter). --head-hash H, the hash of
block M from a source you trust, makes the range hang from it; without it the
headers are the node's own word (or, with --proof, the proof file's, its head
matched to the node's hash of block M). Prints one JSON line per log the node
dropped, invented or altered, then a summary line (JSON lines; --json is
accepted).
Exit status: 0 complete and exact, 1 a log dropped, invented or altered, the
range not hanging from --head-hash, or --proof that does not hold, 2 no verdict
(bad flags, a proof of another range, an unreachable node, a range that cannot
be proven), 3 a bug. Details: docs/cli.md.`;

export const REQUEST_USAGE = `Usage:
  evm-integrity request receipt-root [FILE|-] [--pretty] [--chain C]
                                    [--add-chain ID:R]…
  evm-integrity request logs-bloom [FILE|-] [--pretty] [--chain C]
                                   [--add-chain ID:R]…

Prints the body of POST /v1/evm/verify/receipt-root (or logs-bloom) for a block
in the JSON-RPC format verify block reads (chain_id, header, complete receipts),
from FILE or standard input (- or no FILE). The receipt-root body carries the
block's number, hash and header RLP when the header has them, so the server
checks the header too. --chain C: the chain (an id or a name) of a block that
names none. --add-chain ID:R reads a devnet's block as verify does. The body is
JSON (--json is accepted).
  evm-integrity request receipt-root block.json | curl -s --json @- \\
    -H "Authorization: Bearer $KEY" \\
    http://127.0.0.1:8080/v1/evm/verify/receipt-root
Exit status: 0 the body is printed, 2 a file that cannot be read, is not JSON or
is not a block (one line naming it and the member at fault), 3 a bug, 141 stdout
closed early (… | head).`;

export const CHAINS_USAGE = `Usage:
  evm-integrity chains [--json]

Lists the chains of the registry: each chain's id, the names --chain takes for
it (any case; a chain is also named by its id), its name, and whether its blocks
can be verified (GET /v1/chains tells each era and the evidence it stands on).
--json: one JSON array. Exit status: 0, 2 a bad flag.`;

export const SERVE_USAGE = `Usage:
  evm-integrity serve [--config FILE] [--host H] [--port P]
                      [--store sqlite|postgres|memory] [--data-dir DIR]
                      [--evidence DIR]

Runs the verifier service (default http://127.0.0.1:8080, SQLite store in
./data; --store postgres with database_url or DATABASE_URL shares one store
among replicas). The configuration file (or EVM_INTEGRITY_CONFIG) is JSON; each
member can also be set as EVM_INTEGRITY_<MEMBER> (PORT, HOST, DATABASE_URL too),
which overrides the file, and each flag overrides only the member it names. The
first start with no account creates one and prints its API key once, on
standard error: a key it cannot write there is revoked and the account
removed, the log says so, and it stops (2), so that the next start makes both
again. A later start on a store with accounts says how to make a key for a
lost one.
--evidence DIR (evidence_dir): stand on the blocks operators vouched for in DIR,
each admitted again at start. SIGINT/SIGTERM stop it: requests in progress get
shutdown_timeout_ms (10 s by default) to finish. Every setting: docs/service.md.
Exit status: 0 stopped by SIGINT/SIGTERM, 2 a bad configuration, flag or store,
a port in use, or a first start's key that could not be shown, 3 a bug.`;

export const ADMIN_SYNOPSIS = `  evm-integrity accounts create|list|add-cu|update|disable|delete …
                              [--config FILE] [--store S] [--data-dir DIR]
  evm-integrity keys create|list|revoke … [--config FILE] [--store S]
                              [--data-dir DIR]`;

export const LINEAGE_USAGE = `Usage:
  evm-integrity lineage TRACING_ID --chain C (--bundle FILE | --service URL)
                        [--rpc URL] [--record FILE] [--json] [--workers N]
                        [--anchor-proof FILE --checkpoint ROOT]
                        [--add-chain ID:R]…

Audits a derived record's lineage: from a bundle (.json or .json.gz, offline),
or from the live hosted service (API key in EVM_DATA_SERVICE_API_KEY) with
blocks from --rpc (alias --rpc-url; with --service, ETH_RPC_URL when neither is
given); --record writes what was fetched as a bundle; --workers N computes the
blocks' receipts roots on N worker threads. --chain C: a chain id (decimal or 0x
hex) or name (evm-integrity chains), or a devnet's id added with --add-chain
ID:R. --json: the report as JSON (default: text). A pass says the blocks are
consistent in themselves; --anchor-proof FILE --checkpoint ROOT proves their
hashes the chain's (anchor prove writes the file): a block it proves with
another hash fails block.anchor, and the report's assurance says how many it
proves (authentic, partly_authentic, consistent).
Exit status: 0 every check passes, 1 a check fails, 2 bad input, not verifiable
or an unreachable source, 3 a bug, 141 stdout closed early (… | head).`;

export const AUDIT_USAGE = `Usage:
  evm-integrity audit --chain C --from N --to M
                      (--rpc URL | --service URL [--rpc URL] | --bundle FILE)
                      [--head-hash H] [--anchor N:HASH]… [--tail-hash H]
                      [--anchor-proof FILE --checkpoint ROOT]
                      [--concurrency K] [--batch B] [--max-answer-mb S]
                      [--out FILE] [--resume] [--quiet] [--record FILE]
                      [--add-chain ID:R]… [--evidence DIR]
                      [--learn-evidence] [--chunk-size N]
  evm-integrity audit --chain C --from N --to M --rpc URL --queue URL
                      [--head-hash H] [--anchor N:HASH]… [--tail-hash H]
                      [--concurrency K] [--batch B] [--add-chain ID:R]…
                      [--chunk-size N] [--chunk-timeout S] [--chunk-retries R]

C: a chain id or name (evm-integrity chains). N and M: block numbers (decimal or
0x hex) or latest, finalized, safe (asked of the node once, at start; not with
--bundle). Hashes (--head-hash, --tail-hash,
--anchor N:HASH) with or without 0x. --rpc-url is --rpc; without either,
ETH_RPC_URL names the node (not with --bundle). --anchor-proof FILE --checkpoint
ROOT, in place of those hashes: each block of the range (and N-1) whose hash the
anchor proof proves from ROOT is an anchor (evm-integrity anchor verify); the
summary's anchoring names ROOT. A file that proves no block of the range is
refused (exit 1).

Audits every block of N..M: its header hashes to its hash, it links to its
parent (block N to --head-hash when given), its receipts reproduce receiptsRoot
and logsBloom, and it has one receipt per transaction. Blocks come from a
JSON-RPC node (--rpc), from the hosted service's /evm/rpc proxy (--service
alone), or from a bundle written by --record (--bundle, offline). With --service
URL (the key in EVM_DATA_SERVICE_API_KEY), the service's block and log records
(datasets 0101, 0103) are checked against the chain too; --bundle replays those
checks when the recording had them. Prints one JSON line per block, a line per
reorg seen, and a summary line (NDJSON; --json is accepted), to stdout or --out
FILE; --resume continues the audit in FILE where it stopped (its lines kept up
to the first whose digest does not hold, the blocks from there audited again).
--concurrency K: requests to the node at once (default 4, at most 64), each a
batch of --batch B JSON-RPC calls (a block is two, its header and its receipts;
at most 1000), on K kept-alive connections; K x B/2 blocks are fetched ahead.
Without --batch, a batch holds as many calls as an answer of about 4 MiB does
by the answers so far, from 16 (modern blocks) to 100 (small ones). A node that
refuses batches gets smaller ones, down to 1 (no batching: a block's two calls
on two connections, K blocks ahead).
--max-answer-mb S: the largest answer read from the node (default 32); a larger
one is abandoned and its blocks are unreachable, with that reason.
--add-chain ID:R: chain ID, outside the registry (a devnet), follows rule set R
(ethereum, optimism, arbitrum, scroll, polygon), and --chain ID names it;
without it such a chain's blocks are not verifiable. --evidence DIR: also stand
on the blocks an operator vouched for in DIR (evidence add/capture; not with
--queue). --learn-evidence: each block the run is anchored at (--head-hash's,
--anchor's, --tail-hash's) is tried as evidence for this run, its anchor the
vouched hash (one stderr line each; not with --queue). --chunk-size N: blocks
per request of the service's datasets (default 100; smaller for blocks with many
logs; a replay needs the recording's). Progress on stderr when it is a terminal,
unless --quiet.
--queue postgres://…: the chunks are put on an audit queue in PostgreSQL for
audit-worker processes, on any number of machines, instead of audited here; the
audit's id is printed alone on the last line; each worker asks the node as this
command would (--concurrency, --batch). The same audit enqueued again has
the same id and adds nothing (parked chunks go back to the queue); its plan
stays the first run's, and a line says which of these flags differ. Its chunks
hold --chunk-size blocks (default 500; not given, the same audit enqueued
before under another size is that audit). A chunk's
lease lasts --chunk-timeout seconds (default 600); a node that fails is retried
--chunk-retries times with backoff (default 4), then the chunk is parked.
Exit status: 0 every block passes, 1 a block fails, 2 a block not verifiable,
bad input or a source unreachable past its retries, 3 a bug, 130 interrupted
(Ctrl-C; 143 SIGTERM, 129 SIGHUP; the message says how to resume, and --record
is written), 141 stdout closed early (… | head). Details: docs/audit.md.`;

export const AUDIT_WORKER_USAGE = `Usage:
  evm-integrity audit-worker --queue URL [--concurrency K] [--workers N]
                             [--metrics-port P]

Audits chunks of the audits on the queue (postgres://…, as given to audit
--queue) until stopped: N worker processes (default 1, at most 256), each
holding K chunks at a time (default 3, at most 64): they fetch in turn, one
while the one before is verified and stored, each as the audit's own
--concurrency and --batch say. Run it on as many machines as wanted. SIGTERM or
Ctrl-C finishes the chunks in hand (or hands them back after 30 s). A chunk
whose worker dies is taken by another once its lease expires. --metrics-port P
serves Prometheus metrics at http://127.0.0.1:P/metrics (chunks, blocks, failed
checks; EVM_INTEGRITY_METRICS_TOKEN, when set, is required as a bearer key).
Exit status: 0 stopped, 2 bad input or the queue cannot be opened.`;

export const AUDIT_STATUS_USAGE = `Usage:
  evm-integrity audit-status ID --queue URL [--json]

Where the audit ID stands: chunks done, running, queued, retrying and parked
(with their reasons), links between chunks joined, blocks audited, blocks/s, ETA
(none while a chunk is parked: the audit then cannot finish until it is enqueued
again, and the line says so), and the failed blocks so far. --json: one JSON
object.
Exit status: 0, 2 bad input, no such audit, or the queue cannot be opened.`;

export const AUDIT_EXPORT_USAGE = `Usage:
  evm-integrity audit-export ID --queue URL [--out FILE]

Writes the audit ID's NDJSON (--json is accepted), as evm-integrity audit writes
it: the header line, one line per block and per reorg in block order, and the
summary, to stdout or FILE (which must not exist).
Exit status: 0 every block passes, 1 a block fails, 2 a block not verifiable,
the audit not finished (the lines so far and a summary are written), bad input
or no such audit.`;

export const OVERVIEW = `evm-integrity: offline proofs that EVM chain data is what it claims to be

Usage:
  evm-integrity verify receipt-root|logs-bloom [FILE|-]   verify a request body
  evm-integrity verify block [FILE|-]…                    verify whole blocks
  evm-integrity verify receipt-proof [FILE|-]             verify a receipt proof
  evm-integrity prove receipt FILE --index N [--out P]    prove one receipt
  evm-integrity verify logs-proof FILE --head-hash H      verify a log proof
  evm-integrity anchor verify FILE --checkpoint ROOT      verify an anchor proof
  evm-integrity prove logs --chain C --from N --to M …    prove a range's logs
  evm-integrity audit-logs --chain C --from N --to M …    check eth_getLogs
  evm-integrity anchor prove --checkpoint R --block N …   prove blocks' hashes
  evm-integrity request receipt-root|logs-bloom [FILE|-]  write a request body
  evm-integrity lineage TRACING_ID …                      audit a derived record
  evm-integrity audit --chain C --from N --to M …         audit blocks N..M
  evm-integrity audit … --queue URL                       enqueue it for workers
  evm-integrity audit-worker --queue URL […]              audit queued chunks
  evm-integrity audit-status ID --queue URL               a queued audit's state
  evm-integrity audit-export ID --queue URL [--out F]     a queued audit's lines
  evm-integrity evidence add FILE --trusted-hash H        vouch for a block
  evm-integrity evidence capture --rpc URL --block N …    … read from a node
  evm-integrity evidence list                             list the evidence
  evm-integrity chains [--json]                           list the chains
  evm-integrity serve […]                                 serve the HTTP API
${ADMIN_SYNOPSIS}
  evm-integrity help [COMMAND]   a command's usage (also COMMAND --help)
  evm-integrity --version

On every command: --chain C is a chain id or name (mainnet, base; evm-integrity
chains), --add-chain ID:RULES adds a devnet, a block N is a number or latest,
finalized, safe (asked of the node), --json where the output can be JSON.

Exit status: 0 done or verified, 1 a claim or check is false, 2 bad input or not
verifiable, 3 a bug, 130 interrupted (Ctrl-C; 143 SIGTERM, 129 SIGHUP), 141
stdout closed early.

Commands: verify, request, prove, lineage, anchor, audit, audit-logs,
audit-worker, audit-status, audit-export, evidence, chains, serve,
accounts, keys.`;
