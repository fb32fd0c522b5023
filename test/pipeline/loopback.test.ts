import { describe, expect, it } from 'vitest';
import { isLoopback } from '../../src/pipeline/source.js';

describe('isLoopback (no plain-http warning for this machine)', () => {
  it('knows localhost, 127.0.0.0/8 and ::1, also as IPv4-mapped IPv6 in either notation', () => {
    for (const url of [
      'http://localhost:8080/api',
      'http://127.0.0.1/api',
      'http://127.12.0.9/api',
      'http://[::1]:9/api',
      'http://[::ffff:127.0.0.1]:9/api',
      'http://[::FFFF:7F00:1]/api',
      'http://[::ffff:127.255.255.254]/',
    ]) {
      expect(isLoopback(url), url).toBe(true);
    }
  });

  it('does not take other hosts for loopback', () => {
    for (const url of ['http://0.0.0.0/', 'http://10.0.0.1/', 'http://[::ffff:10.0.0.1]/', 'http://[::2]/', 'http://127.example.edu/', 'http://localhost.example.edu/']) {
      expect(isLoopback(url), url).toBe(false);
    }
  });
});
