import { generateKeyPairSync } from 'node:crypto';
import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { visitorIdentity } from './visitor-identity.ts';

const SECRET = 'test-identity-secret-0123456789abcdef';
const encode = (text: string) => new TextEncoder().encode(text);
const inAnHour = () => Math.floor(Date.now() / 1000) + 3600;
const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** A token as the site's backend signs it. */
const signed = (claims: Record<string, unknown>, alg: string, key: Parameters<SignJWT['sign']>[0]) =>
  new SignJWT(claims).setProtectedHeader({ alg }).sign(key);

describe("the host page's visitor token", () => {
  it('gives the sub of a valid HS256 token signed with IDENTITY_SECRET', async () => {
    const check = visitorIdentity({ secret: SECRET });
    const token = await signed({ sub: 'customer-42', exp: inAnHour() }, 'HS256', encode(SECRET));
    expect(await check(token)).toEqual({ sub: 'customer-42' });
  });

  it('gives the sub of a valid ES256 and RS256 token checked with IDENTITY_PUBLIC_KEY', async () => {
    for (const pair of [
      generateKeyPairSync('ec', { namedCurve: 'P-256' }),
      generateKeyPairSync('rsa', { modulusLength: 2048 }),
    ]) {
      const pem = String(pair.publicKey.export({ type: 'spki', format: 'pem' }));
      const alg = pair.publicKey.asymmetricKeyType === 'ec' ? 'ES256' : 'RS256';
      const token = await signed({ sub: `customer-${alg}`, exp: inAnHour() }, alg, pair.privateKey);
      expect(await visitorIdentity({ publicKey: pem })(token)).toEqual({ sub: `customer-${alg}` });
    }
  });

  it('refuses an expired token, but takes one within the clock tolerance', async () => {
    const check = visitorIdentity({ secret: SECRET });
    const now = Math.floor(Date.now() / 1000);
    const expired = await signed({ sub: 'customer-42', exp: now - 120 }, 'HS256', encode(SECRET));
    const justNow = await signed({ sub: 'customer-42', exp: now - 5 }, 'HS256', encode(SECRET));
    expect(await check(expired)).toBeUndefined();
    expect(await check(justNow)).toEqual({ sub: 'customer-42' });
    // The same token, later: the check reads the clock it is given.
    expect(await check(justNow, new Date((now + 60) * 1000))).toBeUndefined();
  });

  it('refuses a token signed with another key, or with the public key as an HMAC secret', async () => {
    const check = visitorIdentity({ secret: SECRET });
    expect(await check(await signed({ sub: 'a', exp: inAnHour() }, 'HS256', encode(`${SECRET}x`)))).toBeUndefined();
    const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const other = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const pem = String(pair.publicKey.export({ type: 'spki', format: 'pem' }));
    const byPublicKey = visitorIdentity({ publicKey: pem });
    expect(await byPublicKey(await signed({ sub: 'a', exp: inAnHour() }, 'ES256', other.privateKey))).toBeUndefined();
    // The old confusion attack: the public key, known to all, used as an HS256 secret.
    expect(await byPublicKey(await signed({ sub: 'a', exp: inAnHour() }, 'HS256', encode(pem)))).toBeUndefined();
  });

  it('refuses alg none, a missing sub or exp, an empty sub, and what is not a token', async () => {
    const check = visitorIdentity({ secret: SECRET });
    const none = `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url({ sub: 'admin', exp: inAnHour() })}.`;
    expect(await check(none)).toBeUndefined();
    expect(await check(await signed({ exp: inAnHour() }, 'HS256', encode(SECRET)))).toBeUndefined();
    expect(await check(await signed({ sub: 'a' }, 'HS256', encode(SECRET)))).toBeUndefined();
    expect(await check(await signed({ sub: '', exp: inAnHour() }, 'HS256', encode(SECRET)))).toBeUndefined();
    for (const token of [undefined, 42, '', 'a.b.c', 'x'.repeat(5000)]) expect(await check(token)).toBeUndefined();
  });

  it('refuses every token when no identity setting is set', async () => {
    const token = await signed({ sub: 'a', exp: inAnHour() }, 'HS256', encode(SECRET));
    expect(await visitorIdentity({})(token)).toBeUndefined();
  });
});
