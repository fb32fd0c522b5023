import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, redactSecrets } from '../src/log.js';

function sink(isTTY = false): Writable & { text: string; isTTY: boolean } {
  const stream = new Writable({
    write(chunk, _enc, done) {
      stream.text += String(chunk);
      done();
    },
  }) as Writable & { text: string; isTTY: boolean };
  stream.text = '';
  stream.isTTY = isTTY;
  return stream;
}

describe('logger', () => {
  it('redacts secrets and their URL-encoded form from every line', () => {
    const s = sink();
    const log = createLogger({ stream: s, quiet: false, secrets: ['s3cret/token+x'] });
    log.info('GET https://p/api?access_token=s3cret%2Ftoken%2Bx failed');
    log.warn('header was Bearer s3cret/token+x');
    log.error('s3cret/token+x');
    expect(s.text).not.toContain('s3cret');
    expect(s.text.match(/\*\*\*/g)).toHaveLength(3);
    expect(log.warnings).toEqual(['header was Bearer ***']);
    expect(redactSecrets('abc', [undefined])).toBe('abc');
  });

  it('keeps portal text from forging lines or terminal escapes', () => {
    const s = sink();
    const log = createLogger({ stream: s, quiet: false, secrets: [] });
    log.warn('title "x\nerror: fake" \u001b[31mred');
    expect(s.text.split('\n').filter(Boolean)).toHaveLength(1);
    expect(s.text).not.toContain('\u001b');
  });

  it('regression: portal bytes in logs (issue 17, item 4): CI workflow commands and ANSI escapes are defused on every line', () => {
    const s = sink();
    const log = createLogger({ stream: s, quiet: false, secrets: [] });
    log.error('body "\n::error::PWNED\n" and \u001b[31mred\u009b31m');
    log.info('  ##[error]forged\n##vso[task.setvariable variable=x]1');
    log.warn('::warning::x');
    for (const line of s.text.split('\n')) {
      expect(line).not.toMatch(/^\s*(::|##\[)/);
      expect(line).not.toMatch(/##vso\[/);
    }
    expect(s.text).not.toMatch(/[\u001b\u009b]/);
    expect(s.text).toContain('\\u003a:error::PWNED');
  });

  it('redacts the token base64-encoded and percent-encoded in lower case', () => {
    const s = sink();
    const log = createLogger({ stream: s, quiet: false, secrets: ['s3cret/token+x'] });
    log.info(`Basic ${Buffer.from('u:s3cret/token+x').toString('base64')} and s3cret%2ftoken%2bx`);
    expect(s.text).not.toContain('cret');
    expect(s.text).not.toContain(Buffer.from('s3cret/token+x').toString('base64').slice(4, 16));
  });

  it('prints no progress or info when quiet, but still warnings and errors', () => {
    const s = sink();
    const log = createLogger({ stream: s, quiet: true, secrets: [] });
    log.info('info');
    log.progress('progress');
    log.warn('careful');
    log.error('broken');
    expect(s.text).toBe('warning: careful\nerror: broken\n');
  });

  it('overwrites the progress line in place on a terminal', () => {
    const s = sink(true);
    const log = createLogger({ stream: s, quiet: false, secrets: [] });
    log.progress('half');
    log.info('done');
    expect(s.text).toBe('\r\x1b[Khalf\r\x1b[Kdone\n');
  });

  it('makes a progress line given as a function only when it shows one', () => {
    let made = 0;
    const line = (): string => `step ${++made}`;
    const quiet = createLogger({ stream: sink(true), quiet: true, secrets: [] });
    quiet.progress(line);
    expect(made).toBe(0);
    const s = sink(true);
    const log = createLogger({ stream: s, quiet: false, secrets: [] });
    // A terminal shows a line every 100 ms at most: the second, right after the first, is not made.
    log.progress(line);
    log.progress(line);
    expect(made).toBe(1);
    expect(s.text).toBe('\r\x1b[Kstep 1');
  });

  it('prints debug lines only with verbose, and not when quiet', () => {
    const lines = (verbose: boolean, quiet: boolean): string => {
      const s = sink();
      const log = createLogger({ stream: s, quiet, verbose, secrets: ['s3cret'] });
      log.debug('cache: s3cret');
      return s.text;
    };
    expect(lines(false, false)).toBe('');
    expect(lines(true, false)).toBe('cache: ***\n');
    expect(lines(true, true)).toBe('');
  });
});
