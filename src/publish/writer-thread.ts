// Worker thread entry: staging's file writes, a batch at a time, for the main thread (see
// writer.ts). It makes folders and files and checks their bytes; it decides nothing.

import { parentPort, workerData } from 'node:worker_threads';
import { type JobBatch, runBatch } from './write-job.js';

export interface WriterThreadData {
  /** The staging folder every path of a batch is relative to. */
  root: string;
}

const { root } = workerData as WriterThreadData;
const port = parentPort!;

port.on('message', (batch: JobBatch) => {
  const reply = runBatch(root, batch);
  port.postMessage(reply, reply.hashes ? [reply.hashes] : []);
});
