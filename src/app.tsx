import { ChakraProvider } from '@chakra-ui/react';
import { type ReactNode, useEffect, useLayoutEffect, useState } from 'react';
import type { ActorOptions, InspectionEvent, Observer } from 'xstate';
import type { HostPageContext } from '../contract/llm';
import { DEFAULT_PAGE_SETTINGS, type PageSettings } from '../contract/page-settings';
import type { chatMachine } from '../machines/chat-machine';
import { ChatActorContext } from './chat/chat-actor-context';
import { ChatCard } from './chat/chat-card';
import { PageTitleContext } from './page-settings';
import type { ServedCard } from './served-card';
import { getSystem } from './system';
import { t } from './text';

export interface AppProps {
  /** The chat machine with its `fetchReply` actor provided: the openai one in the app, a fake in tests. */
  logic: typeof chatMachine;
  /** An inspector's observer (development only). */
  inspect?: Observer<InspectionEvent>;
  /** The card: the page's own by default, the embedded one in the embed loader's frame. */
  card?: ReactNode;
  /** The served card, which this app replaces: what the visitor typed into it is kept, and a send asked for is done. */
  served?: ServedCard;
  /** The site's settings (title, welcome, starters, history); the spec's by default. */
  settings?: PageSettings;
  /** With the site's `persist: tab`, its lazy chunk: the conversation is restored, kept, and can be cleared. */
  keeping?: typeof import('./chat/persist-tab');
  /** The machine's timers: the browser's by default; a test may hold one back (XState's `clock` option). */
  clock?: ActorOptions<typeof chatMachine>['clock'];
  /** In the embed's frame: what the host page tells the app (src/embed/host-page.ts fills it in), for each request. */
  hostPage?: HostPageContext;
}

export function App({
  logic,
  inspect,
  card = <ChatCard />,
  served,
  settings = DEFAULT_PAGE_SETTINGS,
  clock,
  keeping,
  hostPage,
}: AppProps) {
  // Read once, when the machine starts: with `persist: tab`, the conversation of the tab's previous page.
  const [restored] = useState(() => keeping?.readKeptConversation());
  return (
    <ChakraProvider value={getSystem()}>
      <PageTitleContext value={settings.title}>
        <ChatActorContext.Provider
          logic={logic}
          options={{
            inspect,
            // Only when given: an explicit `undefined` would replace XState's own clock.
            ...(clock ? { clock } : {}),
            input: {
              ...settings,
              statusTexts: {
                noContent: t('noContent'),
                error: t('error'),
                actionExpired: t('actionExpired'),
                actionFailed: t('actionFailed'),
              },
              // The card's language, as the server chose it (none while prerendering): the request tells the page's
              // own server.
              language: globalThis.document?.documentElement.lang,
              hostPage,
              ...(restored ? { restored } : {}),
            },
          }}
        >
          {keeping ? <KeepConversation keep={keeping.keepConversation} /> : null}
          {served ? <CarryOver from={served} /> : null}
          {card}
        </ChatActorContext.Provider>
      </PageTitleContext>
    </ChakraProvider>
  );
}

/**
 * Hands what the visitor did in the served card to the machine, as the keystrokes would have: the text typed, then the
 * send asked for. In the commit that puts the app's card in the page: the served card, just taken out, has every
 * keystroke up to then.
 */
function CarryOver({ from }: { from: ServedCard }) {
  const actor = ChatActorContext.useActorRef();
  useLayoutEffect(() => {
    if (from.box.value) actor.send({ type: 'draft.change', text: from.box.value });
    if (from.sendAsked()) actor.send({ type: 'message.submit' });
  }, [actor, from]);
  return null;
}

/** With `persist: tab`: keeps the conversation in the tab's session storage as it changes. */
function KeepConversation({ keep }: { keep: typeof import('./chat/persist-tab')['keepConversation'] }) {
  const actor = ChatActorContext.useActorRef();
  useEffect(() => keep(actor), [actor, keep]);
  return null;
}
