import { expect, test } from './fixtures';

test('ime probe', async ({ chat, page, fake }) => {
  await page.evaluate(() => {
    const input = document.querySelector('input')!;
    (window as any).__keys = [];
    input.addEventListener('keydown', (e) => (window as any).__keys.push({ type: e.type, key: e.key, isComposing: e.isComposing, keyCode: e.keyCode, prevented: e.defaultPrevented }), true);
    input.addEventListener('keypress', (e) => (window as any).__keys.push({ type: e.type, key: e.key, isComposing: e.isComposing }), true);
    input.addEventListener('compositionstart', (e) => (window as any).__keys.push({ type: e.type }), true);
    input.addEventListener('compositionend', (e) => (window as any).__keys.push({ type: e.type, data: e.data }), true);
  });
  await chat.input.click();
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Input.imeSetComposition', { text: 'にほんご', selectionStart: 4, selectionEnd: 4 });
  await page.keyboard.press('Enter');
  await page.waitForTimeout(300);
  console.log(JSON.stringify(await page.evaluate(() => (window as any).__keys)));
  console.log('value', await chat.input.inputValue(), 'requests', fake.requests.length);
  await cdp.send('Input.insertText', { text: 'にほんご' });
  console.log('value', await chat.input.inputValue(), 'requests', fake.requests.length);
  expect(1).toBe(1);
});
