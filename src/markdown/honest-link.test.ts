// @vitest-environment node
import { describe, expect, it } from 'vitest';
import { misleads } from './honest-link';

const check = (text: string, url: string) => misleads(url, new URL(url).href, text);

describe('misleads', () => {
  it('catches text that names another host than the target', () => {
    expect(check('https://bank.example', 'https://evil.example')).toBe(true);
    expect(check('bank.example', 'https://evil.example')).toBe(true);
    expect(check('www.bank.example/login', 'https://evil.example/login')).toBe(true);
    expect(check(' http://bank.example:8443/a?b#c ', 'https://evil.example')).toBe(true);
    expect(check('bank.example', 'https://bank.example.evil.example')).toBe(true);
    expect(check('bank.example', 'https://login.bank.example')).toBe(true);
    expect(check('ftp://bank.example', 'https://evil.example')).toBe(true);
    expect(check('https://bank.example', 'mailto:help@bank.example')).toBe(true);
    // A look-alike in another script is another host: the text's IDN is compared as punycode.
    expect(check('bаnk.example', 'https://bank.example')).toBe(true);
  });

  it('lets text that names the target host stay a link, however it is spelt', () => {
    expect(check('https://bank.example/login', 'https://bank.example/other')).toBe(false);
    expect(check('BANK.example', 'https://bank.example')).toBe(false);
    expect(check('bank.example.', 'https://bank.example')).toBe(false);
    expect(check('bank.example', 'https://bank.example.')).toBe(false);
    expect(check('www.bank.example', 'https://bank.example')).toBe(false);
    expect(check('bank.example', 'https://WWW.bank.example')).toBe(false);
    expect(check('bücher.example', 'https://xn--bcher-kva.example')).toBe(false);
    expect(check('https://BÜCHER.example', 'https://bücher.example/')).toBe(false);
  });

  it('lets text that names no host stay a link', () => {
    for (const text of ['the bank', 'see bank.example here', '3.14', 'e.g.', 'me@bank.example', 'mailto:x', '']) {
      expect(check(text, 'https://evil.example'), text).toBe(false);
    }
  });

  it('refuses any URL with userinfo, however the parsers read it', () => {
    expect(check('bank', 'https://user:pass@evil.example/')).toBe(true);
    expect(check('bank', 'https://good.example@evil.example')).toBe(true);
    expect(check('x', 'https://:pass@evil.example')).toBe(true);
    // The browser reads `\` as `/` and goes to good.example; other parsers take `good.example\` as a user name.
    expect(check('x', 'http://good.example\\@evil.example')).toBe(true);
    expect(check('x', 'https://evil.example/path@x?q=a@b#c@d')).toBe(false);
    expect(check('write to me', 'mailto:me@example.com')).toBe(false);
  });
});
