import { ChakraProvider } from '@chakra-ui/react';
import { type ReactNode, useEffect } from 'react';
import type { InspectionEvent, Observer } from 'xstate';
import { DEFAULT_PAGE_SETTINGS, type PageSettings } from '../contract/page-settings';
import type { chatMachine } from '../machines/chat-machine';
import { ChatActorContext } from './chat/chat-actor-context';
import { ChatCard } from './chat/chat-card';
import { PageTitleContext } from './page-settings';
import { getSystem } from './system';
import { t } from './text';

export interface AppProps {
  /** The chat machine with its `fetchReply` actor provided: the openai one in the app, a fake in tests. */
  logic: typeof chatMachine;
  /** An inspector's observer (development only). */
  inspect?: Observer<InspectionEvent>;
  /** The card: the page's own by default, the embedded one in the embed loader's frame. */
  card?: ReactNode;
  /** Text already typed into the served card that this app replaces, so that no keystroke is lost. */
  draft?: string;
  /** The site's settings (title, welcome, starters, history); the spec's by default. */
  settings?: PageSettings;
}

export function App({ logic, inspect, card = <ChatCard />, draft, settings = DEFAULT_PAGE_SETTINGS }: AppProps) {
  return (
    <ChakraProvider value={getSystem()}>
      <PageTitleContext value={settings.title}>
        <ChatActorContext.Provider
          logic={logic}
          options={{ inspect, input: { ...settings, statusTexts: { noContent: t('noContent'), error: t('error') } } }}
        >
          {draft ? <CarryDraft text={draft} /> : null}
          {card}
        </ChatActorContext.Provider>
      </PageTitleContext>
    </ChakraProvider>
  );
}

/** Hands the text typed before the app took over to the machine, as the keystrokes would have. */
function CarryDraft({ text }: { text: string }) {
  const actor = ChatActorContext.useActorRef();
  useEffect(() => {
    actor.send({ type: 'draft.change', text });
  }, [actor, text]);
  return null;
}
