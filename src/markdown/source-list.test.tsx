import { ChakraProvider } from '@chakra-ui/react';
import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { getSystem } from '../system';
import { SourceList } from './source-list';

const HELP = 'https://www.example.com/help';
const sources = [
  { n: 1, title: 'Returns', url: `${HELP}/returns#how-to-return` },
  { n: 2, title: 'Hours', url: `${HELP}/hours` },
  { n: 3, title: 'Returns', url: `${HELP}/returns#refunds` },
  { n: 4, title: 'Shipping', url: `${HELP}/shipping` },
];

function renderList(text: string, given = sources) {
  return render(
    <ChakraProvider value={getSystem()}>
      <SourceList sources={given} text={text} />
    </ChakraProvider>,
  );
}

/** The lines of the Sources list (`hidden` ones too): each its number, its link's text and address, and its text. */
function lines(list: HTMLElement) {
  return [...list.querySelectorAll('li')].map((li) => [
    li.value,
    li.querySelector('a')?.textContent,
    li.querySelector('a')?.getAttribute('href'),
    li.textContent,
  ]);
}

describe('SourceList', () => {
  it('shows the pages the reply cites first, in the order it cites them, each page once, the rest under More', async () => {
    const user = userEvent.setup();
    renderList('Call us [2]. Refunds take five days [3], and you have thirty days [1] [2].');
    const list = screen.getByRole('region', { name: 'Sources' });
    const more = within(list).getByRole('button', { name: 'More' });
    const [cited, rest] = list.querySelectorAll('ol');

    // The Returns page is one line, at the section the reply cites first ([3]).
    expect(lines(cited)).toEqual([
      [2, 'Hours', `${HELP}/hours`, 'Hours'],
      [3, 'Returns', `${HELP}/returns#refunds`, 'Returns'],
    ]);
    expect(lines(rest)).toEqual([[4, 'Shipping', `${HELP}/shipping`, 'Shipping']]);
    expect(rest).not.toBeVisible();
    expect(more).toHaveAttribute('aria-expanded', 'false');
    expect(more).toHaveAttribute('aria-controls', rest.id);

    await user.click(more);
    expect(more).toHaveAttribute('aria-expanded', 'true');
    expect(rest).toBeVisible();
    // By keyboard too.
    more.focus();
    await user.keyboard('{Enter}');
    expect(rest).not.toBeVisible();
    await user.keyboard(' ');
    expect(rest).toBeVisible();
  });

  it('shows every page, in order, with no More, when the reply cites none', () => {
    renderList('We open at nine. [9] is no source.');
    const list = screen.getByRole('region', { name: 'Sources' });
    expect(within(list).queryByRole('button')).toBeNull();
    expect(lines(list).map(([n, title, href]) => [n, title, href])).toEqual([
      [1, 'Returns', `${HELP}/returns#how-to-return`],
      [2, 'Hours', `${HELP}/hours`],
      [4, 'Shipping', `${HELP}/shipping`],
    ]);
  });

  it('has no More when the reply cites every page', () => {
    renderList('[4] [1] [2]');
    const list = screen.getByRole('region', { name: 'Sources' });
    expect(within(list).queryByRole('button')).toBeNull();
    expect(lines(list).map(([n]) => n)).toEqual([4, 1, 2]);
  });

  it('says the host once, in the heading, when every page shares it', () => {
    renderList('[1]');
    const list = screen.getByRole('region', { name: 'Sources' });
    expect(list.querySelector('p')?.textContent).toBe('Sources from www.example.com');
    expect(list.textContent?.match(/www\.example\.com/g)).toHaveLength(1);
  });

  it('names each line’s host when the hosts differ', () => {
    renderList('', [
      { n: 1, title: 'Returns', url: `${HELP}/returns` },
      { n: 2, title: 'Hours', url: 'https://shop.example.com:8443/hours' },
    ]);
    const list = screen.getByRole('region', { name: 'Sources' });
    expect(list.querySelector('p')?.textContent).toBe('Sources');
    expect(lines(list).map(([, , , text]) => text)).toEqual([
      'Returns (www.example.com)',
      'Hours (shop.example.com:8443)',
    ]);
  });

  it('shows nothing when no source has a web address', () => {
    renderList('[1]', [{ n: 1, title: 'Mail', url: 'mailto:shop@example.com' }]);
    expect(screen.queryByRole('region', { name: 'Sources' })).toBeNull();
  });
});
