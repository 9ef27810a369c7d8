// Notes a send from the served card before the app is in: see SEND_ASKED_ATTRIBUTE in src/served-card.ts.
{
  const root = document.getElementById('root');
  root?.querySelector('form')?.addEventListener('submit', () => root.setAttribute('data-send-asked', ''));
}
