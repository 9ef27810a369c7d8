// @vitest-environment node
import { describe, expect, it } from 'vitest';
import { misleads } from './honest-link';

const check = ([text, url]: [string, string]) => misleads(url, new URL(url).href, text);

describe('misleads', () => {
  it.each<[string, string]>([
    ['https://bank.example', 'https://evil.example'],
    ['bank.example', 'https://evil.example'],
    ['www.bank.example/login', 'https://evil.example/login'],
    [' http://bank.example:8443/a?b#c ', 'https://evil.example'],
    ['bank.example', 'https://bank.example.evil.example'],
    ['bank.example', 'https://login.bank.example'],
    ['ftp://bank.example', 'https://evil.example'],
    ['https://bank.example', 'mailto:help@bank.example'],
    // A look-alike in another script is another host: both are compared as the URL parser spells them, in punycode.
    ['bаnk.example', 'https://bank.example'],
  ])('catches text that names another host: [%s](%s)', (...link) => {
    expect(check(link)).toBe(true);
  });

  it.each<[string, string]>([
    ['https://bank.example/login', 'https://bank.example/other'],
    ['BANK.example', 'https://bank.example'],
    ['bank.example.', 'https://bank.example'],
    ['bank.example', 'https://bank.example.'],
    ['www.bank.example', 'https://bank.example'],
    ['bank.example', 'https://WWW.bank.example'],
    ['bücher.example', 'https://xn--bcher-kva.example'],
    ['https://BÜCHER.example', 'https://bücher.example/'],
    // Text that names no host.
    ['the bank', 'https://evil.example'],
    ['see bank.example here', 'https://evil.example'],
    ['3.14', 'https://evil.example'],
    ['e.g.', 'https://evil.example'],
    ['me@bank.example', 'https://evil.example'],
    ['', 'https://evil.example'],
    // Userinfo is only what comes before the host: not in a path, query or fragment, nor a mail address.
    ['x', 'https://evil.example/path@x?q=a@b#c@d'],
    ['write to me', 'mailto:me@example.com'],
  ])('lets honest text stay a link: [%s](%s)', (...link) => {
    expect(check(link)).toBe(false);
  });

  it.each<[string, string]>([
    ['bank', 'https://user:pass@evil.example/'],
    ['bank', 'https://good.example@evil.example'],
    ['x', 'https://:pass@evil.example'],
    // The browser reads `\` as `/` and goes to good.example; other parsers take `good.example\` as a user name.
    ['x', 'http://good.example\\@evil.example'],
  ])('refuses a URL with userinfo, however the parsers read it: [%s](%s)', (...link) => {
    expect(check(link)).toBe(true);
  });
});

describe('misleads, reading link text as a reader sees it', () => {
  it.each<[string, string]>([
    ['ba\u200Bnk.example', 'https://evil.example/'],
    ['bank.example\u00AD', 'https://evil.example/'],
    ['bank\u2060.example', 'https://evil.example/'],
    ['bank\u3002example', 'https://evil.example/'],
    ['bank\uFF0Eexample', 'https://evil.example/'],
    ['bank\uFF61example', 'https://evil.example/'],
    ['ｂａｎｋ.example', 'https://evil.example/'],
    // Any bidirectional control makes the text misleading, whatever it says and wherever the link goes.
    ['\u202Eelpmaxe.knab', 'https://evil.example/'],
    ['\u2066bank.example\u2069', 'https://bank.example/'],
    ['click\u200F here', 'https://bank.example/'],
    ['\u061Chere', 'https://bank.example/'],
  ])('catches [%s](%s)', (...link) => {
    expect(check(link)).toBe(true);
  });

  it.each<[string, string]>([
    ['bank\u3002example', 'https://bank.example/'],
    ['ba\u200Bnk.example', 'https://bank.example/'],
    ['ｂａｎｋ.example', 'https://bank.example/'],
    ['the bank\u00AD', 'https://evil.example/'],
  ])('lets honest text stay a link: [%s](%s)', (...link) => {
    expect(check(link)).toBe(false);
  });
});
