// Notes a send from the card served in the page (build/prerender-card.ts) from the moment it is in the page, before
// the app's bundle has arrived, let alone run: src/served-card.ts reads the note when the app takes the card over.
// A file of its own, loaded `async`, runs as soon as it is fetched, whatever the bundle weighs. The note goes on the
// root element, which React renders into but never compares with what it renders.
const root = document.getElementById('root');
const form = root?.querySelector('form');
form?.addEventListener('submit', () => root.setAttribute('data-send-asked', ''));
