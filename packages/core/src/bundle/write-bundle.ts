import { rename, unlink, writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { BlockJson } from '../sources/block-source.js';
import type { Exchange } from '../sources/exchange.js';

/**
 * Writes a bundle as JSON, gzip-compressed when the file name ends with `.gz`.
 * The file is written next to its final name and renamed, so a failed write
 * never leaves a truncated bundle behind.
 */
export async function writeBundle(
  file: string,
  bundle: { base_url?: string; exchanges: Exchange[]; blocks: BlockJson[] },
): Promise<void> {
  const text = JSON.stringify(bundle);
  const bytes = file.endsWith('.gz') ? await promisify(gzip)(Buffer.from(text, 'utf8')) : Buffer.from(text, 'utf8');
  const temporary = `${file}.${process.pid}.${Date.now()}.tmp`;
  try {
    await writeFile(temporary, bytes);
    await rename(temporary, file);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
}
