// The bench's "bare client": GET every URL with undici at the given concurrency, read each body and
// do nothing else. What a Node.js client needs at the least, in its own process, to set beside a
// build (which also parses, renders and writes) and beside curl.
//
//   node test/bench/bare-client.mjs URLS_FILE CONCURRENCY   (token in BENCH_TOKEN)

import { readFile } from 'node:fs/promises';
import { Pool } from 'undici';

const [file, concurrencyArg] = process.argv.slice(2);
const concurrency = Number(concurrencyArg);
const urls = (await readFile(file, 'utf8')).split('\n').filter((u) => u !== '');
const { origin } = new URL(urls[0]);
const pool = new Pool(origin, { connections: concurrency });
const headers = { authorization: `Bearer ${process.env.BENCH_TOKEN}` };
let next = 0;
const worker = async () => {
  while (next < urls.length) {
    const url = new URL(urls[next++]);
    const res = await pool.request({ path: url.pathname + url.search, method: 'GET', headers });
    await res.body.arrayBuffer();
    if (res.statusCode !== 200) throw new Error(`GET ${url}: ${res.statusCode}`);
  }
};
await Promise.all(Array.from({ length: concurrency }, worker));
await pool.close();
