import { afterEach, describe, expect, it, vi } from 'vitest';
import { connectHostPage, hostOrigin } from './host-page';

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
});
