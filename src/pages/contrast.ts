/**
 * WCAG 2.1 colour contrast, used to pick the text colour of the operator's primary colour.
 * Colours are `#rrggbb` (what BRAND_PRIMARY_COLOR becomes once parsed).
 */

/** WCAG 2.1 SC 1.4.3 (AA): "a contrast ratio of at least 4.5:1" for normal text. */
export const AA_NORMAL_TEXT = 4.5;

export const WHITE = '#ffffff';
export const BLACK = '#000000';

function channel(hex: string, offset: number): number {
  const value = parseInt(hex.slice(offset, offset + 2), 16) / 255;
  // WCAG 2.1, definition of relative luminance (sRGB).
  return value <= 0.04045 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
}

export function relativeLuminance(hex: string): number {
  return 0.2126 * channel(hex, 1) + 0.7152 * channel(hex, 3) + 0.0722 * channel(hex, 5);
}

/** WCAG 2.1, definition of contrast ratio: (L1 + 0.05) / (L2 + 0.05), L1 the lighter. */
export function contrastRatio(a: string, b: string): number {
  const [light, dark] = [relativeLuminance(a), relativeLuminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

/**
 * The text colour for a background: white when it meets AA there, else black. For every
 * colour, white or black reaches at least √21 ≈ 4.58:1, so one of them always meets AA.
 */
export function textColorOn(background: string): string {
  return contrastRatio(WHITE, background) >= AA_NORMAL_TEXT ? WHITE : BLACK;
}
