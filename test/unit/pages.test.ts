import t from 'tap';
import { AA_NORMAL_TEXT, BLACK, contrastRatio, textColorOn, WHITE } from '../../src/pages/contrast.js';
import { negotiateLanguage } from '../../src/pages/language.js';
import { describedIn, describeScope } from '../../src/resources/scope-descriptions.js';

t.test('contrast (WCAG 2.1)', async (t) => {
  t.equal(contrastRatio(WHITE, BLACK).toFixed(2), '21.00');
  t.equal(contrastRatio('#777777', WHITE).toFixed(2), '4.48', 'the grey that just misses AA');
  t.equal(contrastRatio(WHITE, '#0b57d0'), contrastRatio('#0b57d0', WHITE), 'symmetric');

  t.test('the primary colour keeps white text when white meets AA, else gets black', async (t) => {
    const cases: [string, string][] = [
      ['#0b57d0', WHITE],
      ['#1a7f37', WHITE],
      ['#000000', WHITE],
      ['#777777', BLACK],
      ['#ffd700', BLACK],
      ['#ffffff', BLACK],
      ['#22c55e', BLACK],
    ];
    for (const [background, text] of cases) {
      t.equal(textColorOn(background), text, background);
      t.ok(contrastRatio(textColorOn(background), background) >= AA_NORMAL_TEXT, `${background}: AA met`);
    }
  });

  t.test('every colour gets a text colour that meets AA', async (t) => {
    let worst = 21;
    for (let r = 0; r < 256; r += 15)
      for (let g = 0; g < 256; g += 15)
        for (let b = 0; b < 256; b += 15) {
          const hex = `#${[r, g, b].map((c) => c.toString(16).padStart(2, '0')).join('')}`;
          worst = Math.min(worst, contrastRatio(textColorOn(hex), hex));
        }
    t.ok(worst >= AA_NORMAL_TEXT, `lowest ratio ${worst.toFixed(2)}`);
  });
});

t.test('Accept-Language (RFC 9110 §12.5.4)', async (t) => {
  const pick = (header: string | undefined) => negotiateLanguage(header, ['en', 'de'], 'en');
  const cases: [string | undefined, string, string][] = [
    [undefined, 'en', 'no header: the default'],
    ['', 'en', 'empty'],
    ['de', 'de', 'one language'],
    ['de-CH', 'de', 'a regional variant: its primary subtag'],
    ['DE-de', 'de', 'case-insensitive'],
    ['fr-FR, fr;q=0.9, de;q=0.8, en;q=0.7', 'de', 'the first supported one by weight'],
    ['en;q=0.5, de;q=0.9', 'de', 'weights, not order'],
    ['de;q=0.9, en;q=0.9', 'de', 'equal weights: the order'],
    ['de;q=0, en', 'en', 'q=0: not acceptable'],
    ['de;q=0.000', 'en', 'q=0.000: not acceptable'],
    ['fr, *;q=0.5', 'en', '* means anything: the default'],
    ['fr, ja', 'en', 'nothing supported'],
    ['de;q=2', 'en', 'a weight above 1 is malformed: the range is dropped'],
    ['de;q=abc, en;q=0.1', 'en', 'a malformed weight drops its range'],
    ['<script>, de', 'de', 'garbage ranges are skipped'],
    ['de ; q=0.8 , en ; q=0.2', 'de', 'spaces around the parameters'],
    [`${'xx, '.repeat(40)}de`, 'en', 'only the first 32 ranges are read'],
  ];
  for (const [header, expected, why] of cases) t.equal(pick(header), expected, why);
});

t.test('scope descriptions', async (t) => {
  t.equal(describedIn('Read your files', 'de'), 'Read your files', 'one text for every language');
  const texts = { en: 'Read your files', 'de-DE': 'Ihre Dateien lesen' };
  t.equal(describedIn(texts, 'de'), 'Ihre Dateien lesen', 'matched on the primary subtag');
  t.equal(describedIn(texts, 'en'), 'Read your files');
  t.equal(describedIn({ fr: 'Lire vos fichiers', en: 'Read your files' }, 'de'), 'Read your files', 'else English');
  t.equal(describedIn({ fr: 'Lire vos fichiers' }, 'de'), 'Lire vos fichiers', 'else the first written');

  const requested = { scopeDescriptions: new Map([['files:read', 'Read the files of this store']]) };
  const other = {
    scopeDescriptions: new Map<string, string | Record<string, string>>([
      ['files:read', 'Read your files'],
      ['tools', { en: 'Use the tools', de: 'Die Werkzeuge benutzen' }],
    ]),
  };
  t.equal(describeScope('files:read', 'en', [requested, other]), 'Read the files of this store', 'the first resource that describes it');
  t.equal(describeScope('tools', 'de', [requested, other]), 'Die Werkzeuge benutzen');
  t.equal(describeScope('admin', 'en', [requested, other]), undefined, 'undescribed: the page shows the name');
});
