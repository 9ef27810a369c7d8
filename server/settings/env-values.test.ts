import { describe, expect, it } from 'vitest';
import { isLoopback, isLoopbackHost, readFlag, readHost, readInteger, readSourceList } from './env-values.ts';

/** What a reader returns for `PORT=raw`, and the problems it found. */
function read<T>(reader: (env: { PORT?: string }, problems: string[]) => T, raw: string | undefined) {
  const problems: string[] = [];
  const value = reader({ PORT: raw }, problems);
  return { value, problems };
}

describe('readInteger', () => {
  const port = (env: { PORT?: string }, problems: string[]) => readInteger(env, 'PORT', 3000, 1, 65_535, problems);

  it('takes the fallback for an unset or blank variable', () => {
    expect(read(port, undefined)).toEqual({ value: 3000, problems: [] });
    expect(read(port, '  ')).toEqual({ value: 3000, problems: [] });
  });

  it('takes decimal digits from min to max, both included', () => {
    expect(read(port, '1')).toEqual({ value: 1, problems: [] });
    expect(read(port, ' 65535 ')).toEqual({ value: 65_535, problems: [] });
  });

  it.each(['0', '65536', '9007199254740993', '+80', '80 80'])('refuses %j with the range, falling back', (raw) => {
    expect(read(port, raw)).toEqual({
      value: 3000,
      problems: [`PORT must be a whole number from 1 to 65535 (got "${raw.trim()}")`],
    });
  });
});

describe('readFlag', () => {
  const flag = (env: { PORT?: string }, problems: string[]) => readFlag(env, 'PORT', problems);

  it.each(['1', 'true', 'YES', ' on '])('takes %j as on', (raw) => {
    expect(read(flag, raw)).toEqual({ value: true, problems: [] });
  });

  it.each([undefined, '', '0', 'False', 'no', 'OFF'])('takes %j as off', (raw) => {
    expect(read(flag, raw)).toEqual({ value: false, problems: [] });
  });

  it('refuses anything else as off, quoting it', () => {
    expect(read(flag, 'y')).toEqual({ value: false, problems: ['PORT must be 1 or 0 (got "y")'] });
  });
});

describe('readHost', () => {
  const host = (env: { PORT?: string }, problems: string[]) => readHost(env, 'PORT', '0.0.0.0', problems);

  it.each(['127.0.0.1', '::', '::1', 'localhost', 'app-1.internal', 'A.EXAMPLE'])('takes %s', (raw) => {
    expect(read(host, raw)).toEqual({ value: raw, problems: [] });
  });

  it.each(['[::1]', 'host_name', '-bad.example', 'bad-.example', 'a..example', 'example.com.', '10.0.0.1/8'])(
    'refuses %s, falling back',
    (raw) => {
      expect(read(host, raw)).toEqual({
        value: '0.0.0.0',
        problems: [`PORT must be an IP address or a host name such as 127.0.0.1 (got "${raw}")`],
      });
    },
  );

  it('takes the fallback for an unset variable', () => {
    expect(read(host, undefined)).toEqual({ value: '0.0.0.0', problems: [] });
  });
});

describe('readSourceList', () => {
  const list = (env: { PORT?: string }, problems: string[]) => readSourceList(env, 'PORT', ["'none'"], problems);

  it('reads a source list, or the fallback when blank', () => {
    expect(read(list, 'self https://www.example.com')).toEqual({
      value: ["'self'", 'https://www.example.com'],
      problems: [],
    });
    expect(read(list, ' ')).toEqual({ value: ["'none'"], problems: [] });
  });

  it('refuses a list that would change the policy around it, falling back', () => {
    const { value, problems } = read(list, "https://ok.example; script-src 'unsafe-eval'");

    expect(value).toEqual(["'none'"]);
    expect(problems).toEqual([expect.stringMatching(/^PORT\b/)]);
  });
});

describe('loopback', () => {
  it('knows the names and addresses of this machine in a URL', () => {
    for (const hostname of ['localhost', 'app.localhost', '127.0.0.1', '127.8.9.10', '[::1]']) {
      expect(isLoopback(hostname), hostname).toBe(true);
    }
    for (const hostname of ['llm.internal', '10.0.0.1', '[2001:db8::1]', 'localhost.example']) {
      expect(isLoopback(hostname), hostname).toBe(false);
    }
  });

  it('takes only loopback addresses and "localhost" as addresses to listen on privately', () => {
    for (const host of ['127.0.0.1', '::1', 'localhost']) expect(isLoopbackHost(host), host).toBe(true);
    // A name other than localhost may resolve anywhere.
    for (const host of ['0.0.0.0', '::', '10.0.0.1', 'metrics.localhost'])
      expect(isLoopbackHost(host), host).toBe(false);
  });
});
