// --header-link / --footer-link: what a value may be in each layer, which URLs are refused, and
// that a page links each accepted one to the same address wherever in the site the page is.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { linkUrlProblem } from '../../src/config/links.js';
import { resolveConfig } from '../../src/config/resolve.js';
import { ConfigError } from '../../src/errors.js';
import { siteLinkViews } from '../../src/render/html/links.js';

const SITE = 'https://www.example.edu/events/';

describe('header and footer links', () => {
  it('come from repeated flags, the config file (objects or strings) and env (a JSON array, or one a line)', () => {
    const about = { label: 'About', url: 'about/' };
    const contact = { label: 'Contact us', url: 'https://www.example.edu/contact?from=a=b' };
    expect(resolveConfig('build', { flags: { headerLinks: ['About=about/', 'Contact us = https://www.example.edu/contact?from=a=b'] }, env: {} }).headerLinks).toEqual([about, contact]);
    const file = { path: 'calfeed.config.json', data: { footerLinks: [about, 'Contact us=https://www.example.edu/contact?from=a=b'] } };
    expect(resolveConfig('build', { flags: {}, env: {}, file }).footerLinks).toEqual([about, contact]);
    expect(resolveConfig('build', { flags: {}, env: { CALFEED_FOOTER_LINKS: JSON.stringify([about, contact]) } }).footerLinks).toEqual([about, contact]);
    expect(resolveConfig('build', { flags: {}, env: { CALFEED_HEADER_LINKS: 'About=about/\nContact us=https://www.example.edu/contact?from=a=b\n' } }).headerLinks).toEqual([about, contact]);
    expect(resolveConfig('build', { flags: {}, env: {} })).toMatchObject({ headerLinks: [], footerLinks: [] });
  });

  it('refuse what is not a link, naming the layer, the link and what to write instead', () => {
    const problem = (layers: Parameters<typeof resolveConfig>[1]): string => {
      try {
        resolveConfig('build', layers);
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        return (error as Error).message;
      }
      return 'accepted';
    };
    expect(problem({ flags: { headerLinks: ['Home=javascript:alert(1)'] }, env: {} })).toBe(
      '--header-link: the link "Home": "javascript:alert(1)" is neither an http(s) URL nor a path on the site (about/, /contact/).',
    );
    expect(problem({ flags: {}, env: {}, file: { path: 'c.json', data: { footerLinks: [{ label: 'A', url: '/a', target: '_blank' }] } } })).toBe(
      'c.json: "footerLinks": a link has "label" and "url" only, not "target".',
    );
    expect(problem({ flags: {}, env: { CALFEED_HEADER_LINKS: '[{"label": "A", "url": "/a"' } })).toMatch(/^env CALFEED_HEADER_LINKS: expected a JSON array/);
    expect(problem({ flags: { footerLinks: ['=about/'] }, env: {} })).toBe('--footer-link: a link needs a label of text on one line, got "".');
    expect(problem({ flags: { footerLinks: ['Me=https://user:pw@example.edu/'] }, env: {} })).toMatch(/has credentials in it/);
  });

  it('take http(s) URLs and paths on the site, and nothing with another scheme or another host by "//"', () => {
    for (const ok of ['about/', '/contact/', 'https://example.edu/', 'http://example.edu/a?b=c#d', 'privacy.html#cookies', '?q=1', 'a/b:c']) expect(linkUrlProblem(ok), ok).toBeUndefined();
    for (const bad of ['javascript:alert(1)', 'JavaScript:alert(1)', 'data:text/html,x', 'mailto:a@b.c', 'vbscript:x', '//evil.example/', ' /a', 'a b', 'a\\b', '', 'https://']) {
      expect(linkUrlProblem(bad), bad).toBeDefined();
    }
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), (url) => {
        if (linkUrlProblem(url) !== undefined) return;
        // Accepted: an http(s) URL, or a reference with no scheme that stays on the site's host.
        const resolved = new URL(url, SITE);
        expect(['http:', 'https:']).toContain(resolved.protocol);
        if (!/^https?:/i.test(url)) expect(resolved.host).toBe('www.example.edu');
      }),
      { numRuns: 1000 },
    );
  });

  it('lead to the same address from every page, however deep, and from 404.html (absolute)', () => {
    const segment = fc.stringMatching(/^[a-z0-9_-]{1,8}$/);
    const path = fc.oneof(fc.array(segment, { minLength: 1, maxLength: 3 }).map((s) => s.join('/')), fc.array(segment, { minLength: 1, maxLength: 3 }).map((s) => s.join('/') + '/'));
    const url = fc.oneof(path, path.map((p) => '/' + p), path.map((p) => `${p}?q=${p}#x`), path.map((p) => `https://other.example/${p}`));
    fc.assert(
      fc.property(fc.array(segment, { maxLength: 4 }), url, (folders, link) => {
        expect(linkUrlProblem(link)).toBeUndefined();
        const file = [...folders, 'index.html'].join('/');
        const [view] = siteLinkViews([{ label: 'L', url: link }], file, SITE);
        const [absolute] = siteLinkViews([{ label: 'L', url: link }], null, SITE);
        expect(new URL(view!.href, SITE + file).href).toBe(new URL(link, SITE).href);
        expect(absolute!.href).toBe(new URL(link, SITE).href);
      }),
      { numRuns: 500 },
    );
  });
});
