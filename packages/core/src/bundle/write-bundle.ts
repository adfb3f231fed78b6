import { promisify } from 'node:util';
import { outputFileKind, outputTarget } from '../files/output-file.js';
import type { BlockJson } from '../sources/block-source.js';
import type { Exchange } from '../sources/exchange.js';

/**
 * Writes a bundle as JSON, gzip-compressed when the file name ends with `.gz`.
 * A regular file (or a new one) is written next to its final name and renamed,
 * so a failed write never leaves a truncated bundle behind; a device, a FIFO or
 * a socket (`/dev/null`, `/dev/stdout`) is written into; a directory is refused
 * (an error with code `EISDIR`); a symbolic link is written through (its target
 * replaced, the link kept).
 */
export async function writeBundle(
  file: string,
  bundle: { base_url?: string; exchanges: Exchange[]; blocks: BlockJson[] },
): Promise<void> {
  // fs/promises and zlib are loaded when a bundle is written: 2.4 ms of every CLI audit's start otherwise.
  const { rename, unlink, writeFile } = process.getBuiltinModule('node:fs/promises');
  const text = JSON.stringify(bundle);
  const bytes = file.endsWith('.gz')
    ? await promisify(process.getBuiltinModule('node:zlib').gzip)(Buffer.from(text, 'utf8'))
    : Buffer.from(text, 'utf8');
  if (outputFileKind(file) === 'stream') return writeFile(file, bytes);
  const target = outputTarget(file);
  const temporary = `${target}.${process.pid}.${Date.now()}.tmp`;
  try {
    await writeFile(temporary, bytes);
    await rename(temporary, target);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
}
