import { afterEach, describe, expect, it, vi } from 'vitest';
import { MAX_IDENTITY_LENGTH } from '../../contract/actions';
import type { HostPageContext } from '../../contract/llm';
import { DEFAULT_PAGE_SETTINGS } from '../../contract/page-settings';
import { connectHostPage, greetHostPage, hostOrigin } from './host-page';

const HOST = 'https://shop.example.com';
const OURS = { ns: 'ai-assistant', v: 1, type: 'open' };

function deliver(data: unknown, origin: string, source: MessageEventSource | null) {
  window.dispatchEvent(new MessageEvent('message', { data, origin, source }));
}

describe('the app and the page that framed it', () => {
  let stop: (() => void) | undefined;
  afterEach(() => stop?.());

  it('hears only its parent window, at the host origin, in our namespace and version', () => {
    const heard = vi.fn();
    stop = connectHostPage(HOST).listen(heard);
    const other = document.createElement('iframe');
    document.body.append(other);

    // In the test the document is its own parent, so `window` stands for the parent window.
    deliver(OURS, 'https://evil.example', window);
    deliver(OURS, HOST, other.contentWindow);
    deliver({ ...OURS, v: 2 }, HOST, window);
    deliver({ ...OURS, ns: 'other-widget' }, HOST, window);
    deliver({ ...OURS, type: 'eval' }, HOST, window);
    deliver('open', HOST, window);
    expect(heard).not.toHaveBeenCalled();

    deliver(OURS, HOST, window);
    expect(heard).toHaveBeenCalledExactlyOnceWith('open', OURS);
    other.remove();
  });

  it('posts to the host origin only, never to any origin', () => {
    const post = vi.spyOn(window.parent, 'postMessage').mockImplementation(() => undefined);
    connectHostPage(HOST).send('close');
    expect(post).toHaveBeenCalledExactlyOnceWith({ ns: 'ai-assistant', v: 1, type: 'close' }, HOST);
  });

  it('is no embed when the page is not in a frame', () => {
    expect(hostOrigin({ search: `?embed=${encodeURIComponent(HOST)}` } as Location)).toBeUndefined();
  });

  describe("the visitor's token from the site", () => {
    // Obviously fake: three base64url parts, not signed by anyone.
    const TOKEN = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ0ZXN0LXZpc2l0b3IifQ.fake-signature_0';
    const identify = (token: unknown) => ({ ns: 'ai-assistant', v: 1, type: 'identify', token });

    /** The object the chat machine is started with, which the greeting fills in. */
    let hostPageContext: HostPageContext;
    afterEach(() => vi.restoreAllMocks());

    /** The app greets the host at `HOST` (the test's document stands for the parent window, as above). */
    function greet() {
      vi.spyOn(window.parent, 'postMessage').mockImplementation(() => undefined);
      const listen = vi.spyOn(window, 'addEventListener');
      hostPageContext = {};
      greetHostPage(document.body, DEFAULT_PAGE_SETTINGS, hostPageContext, HOST);
      // The greeting listens for the page's life; the test stops it by hand.
      const [[type, listener]] = listen.mock.calls;
      stop = () => window.removeEventListener(type, listener);
    }

    it('is set from the host origin only, and a message from any other origin or window cannot set it', () => {
      greet();
      const other = document.createElement('iframe');
      document.body.append(other);

      deliver(identify(TOKEN), 'https://evil.example', window);
      deliver(identify(TOKEN), HOST, other.contentWindow);
      expect(hostPageContext.identity).toBeUndefined();

      deliver(identify(TOKEN), HOST, window);
      expect(hostPageContext.identity).toBe(TOKEN);
      // Nor can another origin take it back.
      deliver(identify(null), 'https://evil.example', window);
      expect(hostPageContext.identity).toBe(TOKEN);
      other.remove();
    });

    it('ignores anything but a JWT of at most 4,096 characters (the server’s limit), and is taken back by null or an empty string', () => {
      const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
      greet();
      deliver(identify(TOKEN), HOST, window);

      const signed = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.';
      for (const token of [
        'not a token',
        'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0',
        `${TOKEN}.extra`,
        `${TOKEN}\n`,
        'a.b.c<script>',
        42,
        { token: TOKEN },
        `${signed}${'x'.repeat(MAX_IDENTITY_LENGTH - signed.length + 1)}`,
      ]) {
        deliver(identify(token), HOST, window);
        expect(hostPageContext.identity).toBe(TOKEN);
      }
      expect(warn).toHaveBeenCalledTimes(8);
      expect(warn.mock.calls.flat().join()).not.toContain(TOKEN);

      const longest = `${signed}${'x'.repeat(MAX_IDENTITY_LENGTH - signed.length)}`;
      deliver(identify(longest), HOST, window);
      expect(hostPageContext.identity).toBe(longest);

      for (const cleared of [null, '', undefined]) {
        deliver(identify(TOKEN), HOST, window);
        deliver(identify(cleared), HOST, window);
        expect(hostPageContext.identity).toBeUndefined();
      }
    });
  });
});
