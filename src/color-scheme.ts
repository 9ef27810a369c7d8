/**
 * Puts Chakra's `dark` class on the page when the visitor's system prefers a dark colour scheme, and keeps it in step
 * when that preference changes. `forced` (`light` or `dark`, the embed loader's `data-theme`) overrides the system.
 */
export function followColorScheme(forced: string | null): void {
  const query = matchMedia('(prefers-color-scheme: dark)');
  const apply = () => {
    document.documentElement.classList.toggle('dark', forced ? forced === 'dark' : query.matches);
  };
  apply();
  query.addEventListener('change', apply);
}
