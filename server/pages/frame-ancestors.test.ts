import { describe, expect, it } from 'vitest';
import { frameAncestorAllows, REFUSED_FRAME_LOG_INTERVAL_MS, refusedFrameNotice } from './frame-ancestors.ts';

const SELF = 'assistant.example.com';

describe('which host pages a frame-ancestors list allows', () => {
  it.each([
    // [sources, host page origin, allowed]
    [["'self'"], 'https://assistant.example.com', true],
    [["'self'"], 'http://assistant.example.com', true],
    [["'self'"], 'https://www.example.com', false],
    [["'none'"], 'https://assistant.example.com', false],
    [['*'], 'https://anything.example', true],
    [['https:'], 'https://shop.example', true],
    [['https:'], 'http://shop.example', false],
    [['http:'], 'https://shop.example', true],
    [['https://www.example.com'], 'https://www.example.com', true],
    [['https://www.example.com'], 'https://WWW.example.com:443', true],
    [['https://www.example.com'], 'http://www.example.com', false],
    [['https://www.example.com'], 'https://www.example.com:8443', false],
    [['https://www.example.com'], 'https://shop.example.com', false],
    [['www.example.com'], 'https://www.example.com', true],
    [['https://*.example.com'], 'https://shop.example.com', true],
    [['https://*.example.com'], 'https://example.com', false],
    [['https://*'], 'https://anything.example', true],
    [['https://*'], 'http://anything.example', false],
    [['http://127.0.0.1:5173'], 'http://127.0.0.1:5173', true],
    [['http://127.0.0.1:5173'], 'http://127.0.0.1:5174', false],
    [['http://127.0.0.1:*'], 'http://127.0.0.1:5174', true],
    [["'self'", 'https://www.example.com'], 'https://www.example.com', true],
  ])('%j, framed by %s: %s', (sources, origin, allowed) => {
    expect(frameAncestorAllows(sources, origin, SELF)).toBe(allowed);
  });
});

describe('the log line for a refused host page', () => {
  function notice(frameAncestors: string[]) {
    let clock = 0;
    const lines: string[] = [];
    const check = refusedFrameNotice(frameAncestors, (line) => lines.push(line), { now: () => clock });
    return { check, lines, advance: (ms: number) => (clock += ms) };
  }

  it('names the origin and the setting to change, once an hour per origin', () => {
    const { check, lines, advance } = notice(['https://www.example.com']);
    check('https://shop.example.org', SELF);
    check('https://shop.example.org/', SELF);
    advance(REFUSED_FRAME_LOG_INTERVAL_MS - 1);
    check('https://shop.example.org', SELF);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('https://shop.example.org');
    expect(lines[0]).toContain('add https://shop.example.org to FRAME_ANCESTORS');

    check('https://other.example.org', SELF);
    expect(lines).toHaveLength(2);
    advance(1);
    check('https://shop.example.org', SELF);
    expect(lines).toHaveLength(3);
  });

  it('says nothing of an allowed host, the default list, a request with no host, or one that is not an origin', () => {
    const { check, lines } = notice([]);
    check('https://assistant.example.com', SELF);
    check(undefined, SELF);
    check('', SELF);
    check('not a url', SELF);
    check('javascript:alert(1)', SELF);
    expect(lines).toEqual([]);
    // The default is 'self': another site is refused, and logged as such.
    check('https://www.example.com', SELF);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("FRAME_ANCESTORS ('self')");
  });

  it('puts nothing of the request in the line but the parsed origin', () => {
    const { check, lines } = notice(['https://www.example.com']);
    check('https://evil.example/path?q=1\n[server] forged line', SELF);
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toMatch(/forged|path|\n/);
  });
});
