// Shell-style file globs for search_files (Node 20 has no stable glob matcher): `*` and `?` stay
// within one path segment, `**` crosses segments (`**/` also matches no directory at all),
// `[abc]` / `[!abc]` are character classes and `{a,b}` alternatives. A glob without `/` matches the
// file name alone, as `--include` does in grep and `-g` in ripgrep; one with `/` matches the path
// relative to the search root.
import { ToolError } from './toolError.js';

export function globToRegExp(glob: string): RegExp {
  let pattern = '';
  let openBraces = 0;
  for (let i = 0; i < glob.length; i += 1) {
    const char = glob.charAt(i);
    if (char === '*' && glob.charAt(i + 1) === '*') {
      const slash = glob.charAt(i + 2) === '/';
      pattern += slash ? '(?:.*/)?' : '.*';
      i += slash ? 2 : 1;
    } else if (char === '*') {
      pattern += '[^/]*';
    } else if (char === '?') {
      pattern += '[^/]';
    } else if (char === '[' && glob.indexOf(']', i + 2) !== -1) {
      const end = glob.indexOf(']', i + 2);
      const members = glob.slice(i + 1, end);
      pattern += `[${members.startsWith('!') ? `^${escapeClass(members.slice(1))}` : escapeClass(members)}]`;
      i = end;
    } else if (char === '{') {
      openBraces += 1;
      pattern += '(?:';
    } else if (char === '}' && openBraces > 0) {
      openBraces -= 1;
      pattern += ')';
    } else if (char === ',' && openBraces > 0) {
      pattern += '|';
    } else {
      pattern += char.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    }
  }
  if (openBraces > 0) throw new ToolError(`glob "${glob}" has an unclosed "{"`);
  return new RegExp(`^${pattern}$`);
}

/** Whether a file (its path relative to the search root, with `/`) matches the glob. */
export function matchesGlob(relativePath: string, glob: RegExp, globHasSlash: boolean): boolean {
  return glob.test(globHasSlash ? relativePath : relativePath.slice(relativePath.lastIndexOf('/') + 1));
}

function escapeClass(members: string): string {
  return members.replace(/[\\\]^]/g, '\\$&');
}
