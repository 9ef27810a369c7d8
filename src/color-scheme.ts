/**
 * Puts Chakra's `dark` class on the page when the visitor's system prefers a dark colour scheme, and keeps it in step
 * when that preference changes. `forced` (`light` or `dark`, the embed loader's `data-theme`) overrides the system;
 * forced light also puts a `light` class, which turns off the page's dark values for a system that prefers dark
 * (build/prerender-card.ts), shown before this runs.
 */
export function followColorScheme(forced: string | null): void {
  const query = matchMedia('(prefers-color-scheme: dark)');
  const apply = () => {
    document.documentElement.classList.toggle('dark', forced ? forced === 'dark' : query.matches);
    document.documentElement.classList.toggle('light', forced === 'light');
  };
  apply();
  query.addEventListener('change', apply);
}
