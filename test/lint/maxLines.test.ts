/**
 * The 400-line rule (ARCHITECTURE.md, eslint.config.js) counts a file's lines as `wc -l` does: blank lines and
 * comments included. Issue #29: with skipBlankLines/skipComments the lint let src/jobs/runner.ts reach 406
 * lines. This checks both that every file in src/ is within the rule and that the lint itself would refuse
 * a 401-line file made only of comments and blank lines.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { ESLint } from 'eslint';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const MAX = 400;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? files(full) : /\.tsx?$/.test(name) ? [full] : [];
  });
}

const t = suite('max lines');

t('every file in src/ has at most 400 lines', () => {
  const over = files(path.join(ROOT, 'src'))
    .map((f) => ({ f: path.relative(ROOT, f), n: readFileSync(f, 'utf8').split('\n').length - 1 }))
    .filter(({ n }) => n > MAX);
  assert.equal(over, []);
});

t('the lint refuses a file in src/ of 401 lines, comments and blank lines included', async () => {
  const eslint = new ESLint({ cwd: ROOT });
  const text = ['export const x = 1;', ...Array.from({ length: MAX }, (_, i) => (i % 2 ? '' : '// a comment'))].join(
    '\n',
  );
  const [result] = await eslint.lintText(text + '\n', { filePath: path.join(ROOT, 'src/jobs/overLong.ts') });
  assert.ok(
    result.messages.some((m) => m.ruleId === 'max-lines'),
    `no max-lines error: ${JSON.stringify(result.messages.map((m) => m.ruleId))}`,
  );
});

t.run();
