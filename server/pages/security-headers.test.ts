import { describe, expect, it } from 'vitest';
import { securityHeaders } from './security-headers.ts';

describe('security headers', () => {
  it.each([
    [["'self'"], 'SAMEORIGIN'],
    [["'none'"], 'DENY'],
    [['https://www.example.com'], null],
  ])('frame-ancestors %j goes with X-Frame-Options %s', (frameAncestors, xfo) => {
    const headers = securityHeaders({ frameAncestors, connectSrc: [] });

    expect(headers['Content-Security-Policy']).toContain(`frame-ancestors ${frameAncestors.join(' ')}`);
    expect(headers['X-Frame-Options'] ?? null).toBe(xfo);
  });

  it('lets a direct-mode page reach its provider only when told to', () => {
    expect(securityHeaders({ frameAncestors: [], connectSrc: [] })['Content-Security-Policy']).toContain(
      "connect-src 'self';",
    );
    expect(
      securityHeaders({ frameAncestors: [], connectSrc: ['https://router.huggingface.co'] })['Content-Security-Policy'],
    ).toContain("connect-src 'self' https://router.huggingface.co;");
  });
});
