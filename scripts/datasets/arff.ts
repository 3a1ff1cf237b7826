/**
 * A small ARFF reader (Weka's format) for the datasets Debian ships in the `weka` package: `@attribute`
 * names and `@data` rows of comma-separated values, single- or double-quoted or bare, `?` for missing.
 * Dense data only; sparse rows (`{…}`) are refused with the line number.
 *
 * @module
 */

export interface Arff {
  names: string[];
  /** Cells per row; null = missing. */
  rows: (string | null)[][];
}

/** Splits one ARFF data line into values, honouring quotes and backslash escapes. */
function values(line: string, where: string): (string | null)[] {
  const out: (string | null)[] = [];
  let i = 0;
  while (i <= line.length) {
    while (line[i] === " " || line[i] === "\t") i++;
    const q = line[i];
    let v: string;
    let quoted = false;
    if (q === "'" || q === '"') {
      quoted = true;
      v = "";
      i++;
      while (i < line.length && line[i] !== q) {
        if (line[i] === "\\" && i + 1 < line.length) i++;
        v += line[i++];
      }
      if (i >= line.length) throw new Error(`${where}: a quoted value never closes`);
      i++;
      while (line[i] === " " || line[i] === "\t") i++;
    } else {
      const end = line.indexOf(",", i);
      v = line.slice(i, end < 0 ? line.length : end).trim();
      i = end < 0 ? line.length : end;
    }
    out.push(!quoted && v === "?" ? null : v);
    if (i >= line.length) break;
    if (line[i] !== ",") throw new Error(`${where}: unexpected ${JSON.stringify(line[i])}`);
    i++;
  }
  return out;
}

function attributeName(rest: string, where: string): string {
  const s = rest.trim();
  const q = s[0];
  if (q === "'" || q === '"') {
    const end = s.indexOf(q, 1);
    if (end < 0) throw new Error(`${where}: an attribute name never closes its quote`);
    return s.slice(1, end);
  }
  const m = /^(\S+)/.exec(s);
  if (!m) throw new Error(`${where}: an attribute has no name`);
  return m[1]!;
}

/** Parses ARFF text; `file` names the source in errors. */
export function parseArff(text: string, file: string): Arff {
  const names: string[] = [];
  const rows: (string | null)[][] = [];
  let inData = false;
  text.split(/\r?\n/).forEach((raw, k) => {
    const where = `${file}:${k + 1}`;
    const line = raw.trim();
    if (line === "" || line.startsWith("%")) return;
    if (!inData) {
      const low = line.toLowerCase();
      if (low.startsWith("@attribute")) names.push(attributeName(line.slice(10), where));
      else if (low.startsWith("@data")) inData = true;
      return;
    }
    if (line.startsWith("{")) throw new Error(`${where}: sparse ARFF rows are not supported`);
    const v = values(line, where);
    if (v.length !== names.length) {
      throw new Error(`${where}: ${v.length} values for ${names.length} attributes`);
    }
    rows.push(v);
  });
  if (!inData) throw new Error(`${file}: no @data section`);
  return { names, rows };
}
