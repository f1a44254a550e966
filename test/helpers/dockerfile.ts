import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { REPOSITORY } from '../../harness/process.js';

/** One instruction of the Dockerfile: its keyword (upper case) and the rest of the line. */
export interface Instruction {
  readonly keyword: string;
  readonly args: string;
}

/** The Dockerfile's instructions, continuation lines joined, comments dropped. */
export async function dockerfileInstructions(): Promise<Instruction[]> {
  const text = await readFile(join(REPOSITORY, 'Dockerfile'), 'utf8');
  return text
    .split('\n')
    .filter((line) => !/^\s*#/.test(line))
    .join('\n')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const [keyword = '', ...rest] = line.trim().split(/\s+/);
      return { keyword: keyword.toUpperCase(), args: rest.join(' ') };
    });
}
