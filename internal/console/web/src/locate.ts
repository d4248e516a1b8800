// Finds the line of a document where a field named by its path in the
// document (`tools[0].input_schema`, as the API's errors name it) is
// written, for block-style YAML and for indented JSON. It reads
// indentation only, which is what an error marker needs; a path it cannot
// follow to the end gives the line of the deepest part it found.

type Segment = string | number;

export function parsePath(path: string): Segment[] {
  const out: Segment[] = [];
  for (const m of path.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) {
    if (m[2] !== undefined) out.push(Number(m[2]));
    else if (m[1] !== undefined) out.push(m[1]);
  }
  return out;
}

interface Line {
  indent: number; // column of the first character that is not a space
  keyCol: number; // column of the key (after any "- "), -1 when none
  key: string | null;
  dash: boolean; // starts a sequence item
  open: string; // "[" or "{" ending a JSON line that opens a container
  blank: boolean;
}

function scan(text: string): Line[] {
  return text.split("\n").map((raw) => {
    const s = raw.replace(/\r$/, "");
    const indent = s.length - s.trimStart().length;
    const body = s.trimStart();
    const blank = body === "" || body.startsWith("#");
    let rest = body;
    let col = indent;
    let dash = false;
    while (/^-(\s|$)/.test(rest)) {
      dash = true;
      const after = rest.slice(1);
      const trimmed = after.trimStart();
      col += 1 + (after.length - trimmed.length);
      rest = trimmed;
    }
    const m = /^(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|([^\s:#{}[\],"'][^:#]*?))\s*:(\s|$)/.exec(rest);
    const key = m ? (m[1] ?? m[2] ?? m[3] ?? "").trim() : null;
    const last = body.replace(/,\s*$/, "").slice(-1);
    return { indent, keyCol: key === null ? -1 : col, key, dash, open: last === "[" || last === "{" ? last : "", blank };
  });
}

// locateLine returns the 1-based line of path in text, or null.
export function locateLine(text: string, path: string): number | null {
  const lines = scan(text);
  let from = 0;
  let to = lines.length;
  let found: number | null = null;
  for (const seg of parsePath(path)) {
    const range = lines.slice(from, to);
    if (typeof seg === "string") {
      const cols = range.filter((l) => !l.blank && l.key !== null).map((l) => l.keyCol);
      if (cols.length === 0) break;
      const base = Math.min(...cols);
      const at = range.findIndex((l) => l.key === seg && l.keyCol === base);
      if (at < 0) break;
      const i = from + at;
      found = i;
      let next = i + 1;
      while (next < to && lines[next]?.blank) next++;
      // "key:" followed by "- item" at the key's own column (compact YAML).
      const compact = next < to && lines[next]?.dash === true && lines[next]?.indent === base;
      let end = i + 1;
      for (; end < to; end++) {
        const l = lines[end];
        if (!l || l.blank) continue;
        if (l.indent < base) break;
        if (l.indent === base && !(compact && l.dash)) break; // a sibling, or a closing bracket
      }
      from = i + 1;
      to = end;
    } else {
      // YAML: items start with "- " at the smallest dash column; JSON: items
      // are the lines at the smallest indent below the opening bracket.
      const dashes = range.filter((l) => !l.blank && l.dash);
      const solid = range.filter((l) => !l.blank);
      const isYaml = dashes.length > 0 && Math.min(...dashes.map((l) => l.indent)) <= Math.min(...solid.map((l) => l.indent));
      let starts: number[];
      if (isYaml) {
        const col = Math.min(...dashes.map((l) => l.indent));
        starts = range.flatMap((l, k) => (l.dash && l.indent === col ? [from + k] : []));
      } else {
        if (solid.length === 0) break;
        const col = Math.min(...solid.map((l) => l.indent));
        starts = [];
        let depthOpen = false;
        range.forEach((l, k) => {
          if (l.blank) return;
          const first = (text.split("\n")[from + k] ?? "").trimStart();
          if (l.indent === col && !/^[}\]]/.test(first)) {
            if (!depthOpen) starts.push(from + k);
            depthOpen = l.open !== "";
          } else if (l.indent === col) {
            depthOpen = false;
          }
        });
      }
      const i = starts[seg];
      if (i === undefined) break;
      found = i;
      const next = starts[seg + 1] ?? to;
      from = i;
      to = next;
      if (!isYaml && lines[i]?.open) from = i + 1;
    }
  }
  return found === null ? null : found + 1;
}

// lineOf reads the line an error message names ("line 6: …", "line 3,
// column 5: …"), else finds the field in the document.
export function lineOf(text: string, field: string, message: string): number | null {
  const named = /\bline (\d+)\b/.exec(message) ?? /\bline (\d+)\b/.exec(field);
  if (named?.[1]) return Number(named[1]);
  return locateLine(text, field);
}
