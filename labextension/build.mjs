// Builds the prebuilt extension (../nbacp/labextension) with @jupyterlab/builder alone, without a
// Python JupyterLab: the core packages' metadata (which modules are shared singletons, at which
// versions) comes from the npm package @jupyterlab/core-meta, pinned by package-lock.json.
// `jupyter labextension build .` does the same with the installed JupyterLab's metadata.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
const meta = join(dirname(require.resolve('@jupyterlab/core-meta/package.json')), 'core.package.json');
const core = mkdtempSync(join(tmpdir(), 'nbacp-core-'));
try {
  copyFileSync(meta, join(core, 'package.json'));
  const builder = join(dirname(require.resolve('@jupyterlab/builder/package.json')), 'lib', 'build-labextension.js');
  execFileSync(process.execPath, [builder, '--core-path', core, '.'], { stdio: 'inherit' });
} finally {
  rmSync(core, { recursive: true, force: true });
}
