/**
 * The console's one script file (GET /admin/copy.js, allowed by its exact URL in the CSP of
 * the page that runs it): a copy button for each `button[data-copy]`, shown only when the
 * script runs and the clipboard exists. The field it copies stays selectable without it.
 */

export const COPY_SCRIPT_PATH = '/copy.js';

export const COPY_SCRIPT = `'use strict';
for (const button of document.querySelectorAll('button[data-copy]')) {
  const field = document.getElementById(button.dataset.copy);
  const status = document.getElementById(button.dataset.status);
  if (!field || !status || !navigator.clipboard) continue;
  button.hidden = false;
  button.addEventListener('click', () => {
    navigator.clipboard.writeText(field.value).then(
      () => { status.textContent = button.dataset.copied; },
      () => { field.select(); status.textContent = button.dataset.failed; },
    );
  });
}
`;
