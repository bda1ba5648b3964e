/**
 * One webhook receiver replica, run by dedupe.test.ts: the Node adapter on 127.0.0.1 with a
 * deduplicator on the shared Redis. Each event it handles is pushed to the Redis list
 * RECEIVER_LIST, so the test counts handlings across replicas. Prints its URL once listening.
 */
import { createServer } from 'node:http';
import { Redis } from 'ioredis';
import { RedisDedupeStore } from '../../src/redis/index.js';
import { createDeduplicator, createNodeHandler } from '../../src/webhooks/index.js';

const redis = new Redis(Number(process.env['RECEIVER_REDIS_PORT']), '127.0.0.1', { commandTimeout: 500 });
redis.on('error', () => {});
const list = process.env['RECEIVER_LIST'] as string;
const dedupe = createDeduplicator({ store: new RedisDedupeStore({ redis, namespace: list }) });
const handler = createNodeHandler({
  secret: process.env['RECEIVER_SECRET'] as string,
  dedupe,
  onEvent: async (event) => {
    await redis.rpush(list, event.type === 'voice.test.completed' ? event.id : event.type);
  },
});
const server = createServer((request, response) => void handler(request, response));
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as { port: number };
  process.stdout.write(`http://127.0.0.1:${port}\n`);
});
process.on('SIGTERM', () => {
  server.close();
  redis.disconnect();
});
