// A React site as its owner writes it, in StrictMode, with the assistant's component from its tarball
// (e2e/react-package.spec.ts). The page's own buttons drive what a site does: open the chat through the ref, change
// the language, sign the visitor in and out (an obviously fake token), unmount and remount the component, and mount a
// second one.
import { AIAssistant } from '@ai-assistant/react';
import { StrictMode, useRef, useState } from 'react';
import { createRoot } from 'react-dom/client';

// The assistant's address is the test server's, given in the page's query; `hidden` starts without the component, and
// `first` renders it with another (bad) address until the page's button gives it the right one.
const query = new URLSearchParams(location.search);
const src = query.get('src');
window.hostEvents = [];
const FAKE_VISITOR_TOKEN = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJyZWFjdC12aXNpdG9yIn0.fake-react-signature';

function App() {
  const assistant = useRef(null);
  const [shown, setShown] = useState(!query.has('hidden'));
  const [lang, setLang] = useState('en');
  const [second, setSecond] = useState(false);
  const [identity, setIdentity] = useState();
  const [address, setAddress] = useState(query.get('first') ?? src);
  return (
    <main>
      <h1>Garden tools</h1>
      <button type="button" onClick={() => assistant.current?.open()}>
        Ask the assistant
      </button>
      <button type="button" onClick={() => setLang('de')}>
        Deutsch
      </button>
      <button type="button" onClick={() => setIdentity(identity ? undefined : FAKE_VISITOR_TOKEN)}>
        {identity ? 'Sign out' : 'Sign in'}
      </button>
      <button type="button" onClick={() => setShown(!shown)}>
        {shown ? 'Hide the assistant' : 'Show the assistant'}
      </button>
      <button type="button" onClick={() => setSecond(true)}>
        Add a second assistant
      </button>
      <button type="button" onClick={() => setAddress(src)}>
        Use the assistant's address
      </button>
      {shown && (
        <AIAssistant
          ref={assistant}
          src={address}
          lang={lang}
          identity={identity}
          offsetBottom={24}
          onEvent={(event) => window.hostEvents.push(event.type)}
        />
      )}
      {second && <AIAssistant src={src} position="left" />}
    </main>
  );
}

createRoot(document.getElementById('root')).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
