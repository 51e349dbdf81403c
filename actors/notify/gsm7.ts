/**
 * Text that a phone receives in GSM-7 (3GPP TS 23.038): a message with one character outside the alphabet
 * goes out as UCS-2, which halves what a segment holds (153 → 67 per part). Characters outside are
 * replaced by their nearest GSM-7 spelling, or `?`.
 */

const BASIC =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
/** Sent as escape + character: two septets each. */
const EXTENSION = '^{}\\[~]|€\f';

const basic = new Set(BASIC);
const extension = new Set(EXTENSION);

const NEAREST: Readonly<Record<string, string>> = {
  '·': '-',
  '•': '-',
  '–': '-',
  '—': '-',
  '−': '-',
  '…': '...',
  '✗': 'x',
  '✓': 'v',
  '‘': "'",
  '’': "'",
  '‚': "'",
  '“': '"',
  '”': '"',
  '„': '"',
  '«': '"',
  '»': '"',
  '\t': ' ',
  '\u00a0': ' ',
};

/** Septets `ch` takes in a GSM-7 message. */
const septets = (ch: string): number => (extension.has(ch) ? 2 : 1);

/** One GSM-7 spelling of `ch`: itself, its nearest spelling, itself without accents, else `?`. */
function spell(ch: string): string {
  if (basic.has(ch) || extension.has(ch)) return ch;
  const near = NEAREST[ch];
  if (near !== undefined) return near;
  const bare = ch.normalize('NFD').replace(/\p{M}/gu, '');
  return [...bare].every((c) => basic.has(c)) && bare !== '' ? bare : '?';
}

/** Septets `text` (already GSM-7) takes. */
export const septetCount = (text: string): number => [...text].reduce((n, ch) => n + septets(ch), 0);

/** `text` in the GSM-7 alphabet, cut to `maxSeptets` with `...` marking a cut. */
export function gsm7(text: string, maxSeptets: number): string {
  const out: string[] = [];
  let used = 0;
  const spelled = [...text].map(spell).join('');
  if (septetCount(spelled) <= maxSeptets) return spelled;
  const room = maxSeptets - 3;
  for (const ch of spelled) {
    const cost = septets(ch);
    if (used + cost > room) break;
    out.push(ch);
    used += cost;
  }
  return `${out.join('')}...`;
}
